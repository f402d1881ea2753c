# wheel.cmake - what the Python wheel installs, when scikit-build-core drives the build.
#
# The wheel carries no librdkafka. The plugin binds to the librdkafka that
# loads it (plugin/bp_rdk.c); bp-audit is built as a shared library,
# bp_audit_module, whose rd_kafka_* symbols stay unresolved until
# bucket_priority._cli has loaded the installed confluent-kafka wheel's
# librdkafka globally. So nothing here links librdkafka: only its headers
# are used, copied alone into the build tree (a compiler with its own libc
# headers, zig cc, must not see all of /usr/include).
# Everything is installed in component "wheel" under bucket_priority/ in
# the wheel's platlib (pyproject.toml selects that component).

find_path(BP_RDKAFKA_HEADER_ROOT librdkafka/rdkafka.h
  HINTS ${RDKAFKA_INCLUDEDIR} ${RDKAFKA_INCLUDE_DIRS}
  PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH)
if(NOT BP_RDKAFKA_HEADER_ROOT)
  message(FATAL_ERROR "wheel: librdkafka/rdkafka.h not found (librdkafka-dev)")
endif()
set(bp_wheel_headers ${CMAKE_BINARY_DIR}/rdkafka-headers)
file(COPY ${BP_RDKAFKA_HEADER_ROOT}/librdkafka DESTINATION ${bp_wheel_headers})

# Headers only: the programs below link no librdkafka.
set_property(TARGET PkgConfig::RDKAFKA PROPERTY INTERFACE_LINK_LIBRARIES "")
set_property(TARGET PkgConfig::RDKAFKA PROPERTY INTERFACE_LINK_OPTIONS "")
set_property(TARGET PkgConfig::RDKAFKA PROPERTY INTERFACE_LINK_DIRECTORIES "")
set_property(TARGET PkgConfig::RDKAFKA PROPERTY INTERFACE_INCLUDE_DIRECTORIES
  ${bp_wheel_headers})
target_include_directories(bucketpriority SYSTEM PRIVATE ${bp_wheel_headers})

# bp-audit's main() as bp_audit_main(), in a shared library left with
# undefined rd_kafka_* symbols (no NEEDED entry for librdkafka).
add_library(bp_audit_module SHARED tools/bp_audit_cli.c)
target_compile_definitions(bp_audit_module PRIVATE main=bp_audit_main)
target_link_libraries(bp_audit_module PRIVATE bp_audit bp_cli)
set_target_properties(bp_audit_module PROPERTIES
  OUTPUT_NAME bp_audit PREFIX "lib")

# No path of the build machine in the artefacts: no debug information
# (zig cc emits it unless told not to), stripped, and the source and build
# directories rewritten wherever __FILE__ is used.
get_property(bp_wheel_targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
foreach(t ${bp_wheel_targets})
  get_target_property(kind ${t} TYPE)
  if(kind MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
    target_compile_options(${t} PRIVATE -g0
      -ffile-prefix-map=${CMAKE_SOURCE_DIR}/=
      -ffile-prefix-map=${CMAKE_BINARY_DIR}/=)
  endif()
  if(kind MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
    target_link_options(${t} PRIVATE -s)
  endif()
endforeach()
set(CMAKE_SKIP_RPATH ON)
set_target_properties(bucketpriority bp-layout bp_audit_module PROPERTIES
  SKIP_BUILD_RPATH ON INSTALL_RPATH "")

# The unversioned plugin name (a wheel holds no symbolic links), the two
# programs, under bucket_priority/ in the wheel.
install(FILES $<TARGET_FILE:bucketpriority> DESTINATION ${SKBUILD_PLATLIB_DIR}/bucket_priority/lib
  RENAME libbucketpriority.so COMPONENT wheel)
install(FILES $<TARGET_FILE:bp_audit_module> DESTINATION ${SKBUILD_PLATLIB_DIR}/bucket_priority/lib
  COMPONENT wheel)
install(PROGRAMS $<TARGET_FILE:bp-layout> DESTINATION ${SKBUILD_PLATLIB_DIR}/bucket_priority/bin
  COMPONENT wheel)
