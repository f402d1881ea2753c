# packaging-deb.cmake - Debian (and RPM) packages through CPack, one package
# per install component (packaging/build-deb.sh drives it; see
# packaging/deb/README for the choices made):
#   component  Debian                 RPM
#   plugin     libbucketpriority0     bucket-priority         the library/plugin,
#              with its unversioned name (plugin.library.paths=libbucketpriority)
#   dev        libbucketpriority-dev  bucket-priority-devel   header, .pc, CMake package
#   tools      bucket-priority-tools  bucket-priority-tools   bp-layout, bp-audit, man pages
# The version is PROJECT_VERSION (read from include/bucket_priority.h).
# The files a package must carry besides (copyright or license, changelogs,
# lintian overrides, man pages) are installed only with BP_PACKAGING=DEB or
# RPM, so a plain `cmake --install` and the wheel are unchanged.

set(BP_PACKAGING OFF CACHE STRING
    "Install the package files of DEB or RPM besides the program (OFF: none)")
set_property(CACHE BP_PACKAGING PROPERTY STRINGS OFF DEB RPM)
set(BP_DEB_REVISION 1 CACHE STRING "Package revision (Debian revision, RPM release)")
set(BP_PACKAGE_MAINTAINER
    "bucket-priority maintainers <maintainers@users.noreply.a-seed-aab41dc9.example>"
    CACHE STRING "Maintainer field of the packages")

set(bp_deb_runtime libbucketpriority${PROJECT_VERSION_MAJOR})
set(bp_deb_dev libbucketpriority-dev)
set(bp_deb_tools bucket-priority-tools)
set(bp_rpm_runtime bucket-priority)
set(bp_rpm_dev bucket-priority-devel)
set(bp_pkg_dir ${CMAKE_CURRENT_LIST_DIR}/../packaging)
get_filename_component(bp_pkg_dir ${bp_pkg_dir} ABSOLUTE)

if(BP_PACKAGING STREQUAL "DEB" OR BP_PACKAGING STREQUAL "RPM")
  find_program(BP_GZIP gzip REQUIRED)
  set(bp_gen ${CMAKE_BINARY_DIR}/packaging)
  file(MAKE_DIRECTORY ${bp_gen})
  # gzip -9n: no name and no time stamp in the header (reproducible).
  function(bp_gzip in out)
    execute_process(COMMAND ${BP_GZIP} -9nc ${in} OUTPUT_FILE ${out}
                    RESULT_VARIABLE rc)
    if(rc)
      message(FATAL_ERROR "gzip ${in} failed")
    endif()
  endfunction()
  foreach(page bp-layout bp-audit)
    bp_gzip(${CMAKE_SOURCE_DIR}/docs/man/${page}.1 ${bp_gen}/${page}.1.gz)
  endforeach()
  install(FILES ${bp_gen}/bp-layout.1.gz ${bp_gen}/bp-audit.1.gz
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
endif()

if(BP_PACKAGING STREQUAL "DEB")
  # changelog.Debian: one entry for this version, dated SOURCE_DATE_EPOCH
  # (string(TIMESTAMP) honours it), so two builds of one commit agree.
  string(TIMESTAMP BP_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
  set(BP_DEB_VERSION ${PROJECT_VERSION}-${BP_DEB_REVISION})
  file(READ ${bp_pkg_dir}/deb/changelog.in bp_text)
  string(REGEX REPLACE "(^|\n)#[^\n]*" "" bp_text "${bp_text}")
  string(REGEX REPLACE "^\n+" "" bp_text "${bp_text}")
  string(CONFIGURE "${bp_text}" bp_text @ONLY)
  file(WRITE ${bp_gen}/changelog.Debian "${bp_text}")
  bp_gzip(${bp_gen}/changelog.Debian ${bp_gen}/changelog.Debian.gz)
  # The upstream changelog, where policy puts it (changelog.gz).
  bp_gzip(${CMAKE_SOURCE_DIR}/CHANGELOG.md ${bp_gen}/changelog.gz)
  foreach(pair "plugin;${bp_deb_runtime}" "dev;${bp_deb_dev}" "tools;${bp_deb_tools}")
    list(GET pair 0 comp)
    list(GET pair 1 pkg)
    install(FILES ${bp_pkg_dir}/deb/copyright ${bp_gen}/changelog.Debian.gz
      ${bp_gen}/changelog.gz
      DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg} COMPONENT ${comp})
    install(FILES ${bp_pkg_dir}/deb/lintian/${pkg}
      DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides COMPONENT ${comp})
  endforeach()
elseif(BP_PACKAGING STREQUAL "RPM")
  # The license where Fedora's %license puts it, the upstream changelog
  # with the runtime package.
  foreach(pair "plugin;${bp_rpm_runtime}" "dev;${bp_rpm_dev}" "tools;${bp_deb_tools}")
    list(GET pair 0 comp)
    list(GET pair 1 pkg)
    install(FILES ${CMAKE_SOURCE_DIR}/LICENSE
      DESTINATION ${CMAKE_INSTALL_DATADIR}/licenses/${pkg} COMPONENT ${comp})
  endforeach()
  install(FILES ${CMAKE_SOURCE_DIR}/CHANGELOG.md
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${bp_rpm_runtime} COMPONENT plugin)
elseif(BP_PACKAGING)
  message(FATAL_ERROR "BP_PACKAGING=${BP_PACKAGING}: expected OFF, DEB or RPM")
endif()

set(CPACK_PACKAGE_NAME bucket-priority)
set(CPACK_PACKAGE_VENDOR "The bucket-priority authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${BP_PACKAGE_MAINTAINER}")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it above each
# package's own first line (CPACK_DEBIAN_<COMPONENT>_DESCRIPTION).
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_COMPONENTS_ALL plugin dev tools)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
# Packages go where build-deb.sh says; no source package.
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/cpack)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PRE_BUILD_SCRIPTS ${bp_pkg_dir}/cpack-mtime.cmake)

# --- Debian ---------------------------------------------------------------
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE ${BP_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BP_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SOURCE bucket-priority)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(bp_deb_about
"The bucket priority pattern splits one Kafka topic's partitions into named
buckets by percentage, routes every record to its bucket by its key, and
gives each bucket's consumers only that bucket's partitions, so that
critical records are never queued behind a flood of bulk ones. It is a
librdkafka plugin, loaded purely by configuration.")

set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME ${bp_deb_runtime})
set(CPACK_DEBIAN_PLUGIN_PACKAGE_SECTION libs)
# Not linked to librdkafka: it binds at run time to the copy of the client
# that loads it (Debian's librdkafka1, a wheel's, Go's or Node's own), so
# librdkafka1 is not a dependency; it is what the package enhances.
set(CPACK_DEBIAN_PLUGIN_PACKAGE_ENHANCES "librdkafka1")
set(CPACK_DEBIAN_PLUGIN_PACKAGE_SUGGESTS "${bp_deb_tools}")
# A shlibs file for the packages that hold a shared library (the plugin's).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# The ldconfig trigger instead of ldconfig calls in maintainer scripts:
# CPack adds postinst/postrm calling ldconfig too, which build-deb.sh drops.
set(CPACK_DEBIAN_PLUGIN_PACKAGE_CONTROL_EXTRA "${bp_pkg_dir}/deb/triggers")
set(CPACK_DEBIAN_PLUGIN_DESCRIPTION
"bucket priority plugin for librdkafka (message prioritization)
${bp_deb_about}

This package holds the plugin: set plugin.library.paths=libbucketpriority
in a producer's or consumer's configuration to load it by name.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME ${bp_deb_dev})
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The .pc file Requires rdkafka and the CMake package looks it up with
# pkg-config: librdkafka-dev and pkg-config come with the headers.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${bp_deb_runtime} (= ${PROJECT_VERSION}-${BP_DEB_REVISION}), librdkafka-dev (>= 2.0.2), pkgconf | pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION
"bucket priority plugin for librdkafka - development files
${bp_deb_about}

This package holds the header bucket_priority.h, the pkg-config file
bucketpriority.pc and the CMake package (find_package(BucketPriority)).")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ${bp_deb_tools})
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION net)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "${bp_deb_runtime}")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
"bucket priority layouts and audit of a live Kafka topic
${bp_deb_about}

This package holds bp-layout, which prints the partitions of each bucket,
what growing the topic moves and the steps of a live layout change, and
bp-audit, which checks a live topic, its producers and its bucket groups.")

# --- RPM (packaging/build-deb.sh, a build with BP_PACKAGING=RPM and
# CMAKE_INSTALL_LIBDIR=lib64) ----------------------------------------------
set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE ${BP_DEB_REVISION})
set(CPACK_RPM_PACKAGE_LICENSE MIT)
set(CPACK_RPM_PACKAGE_ARCHITECTURE x86_64)
set(CPACK_PACKAGE_RELOCATABLE OFF)
set(CPACK_RPM_PACKAGE_AUTOREQPROV ON)
set(CPACK_RPM_PLUGIN_PACKAGE_NAME ${bp_rpm_runtime})
set(CPACK_RPM_DEV_PACKAGE_NAME ${bp_rpm_dev})
set(CPACK_RPM_TOOLS_PACKAGE_NAME ${bp_deb_tools})
set(CPACK_RPM_PLUGIN_PACKAGE_GROUP "System Environment/Libraries")
set(CPACK_RPM_DEV_PACKAGE_GROUP "Development/Libraries")
set(CPACK_RPM_TOOLS_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_DEV_PACKAGE_REQUIRES
    "${bp_rpm_runtime}%{?_isa} = ${PROJECT_VERSION}-${BP_DEB_REVISION}, pkgconfig(rdkafka) >= 2.0.2")
set(CPACK_RPM_PLUGIN_POST_INSTALL_SCRIPT_FILE ${bp_pkg_dir}/rpm/ldconfig.sh)
set(CPACK_RPM_PLUGIN_POST_UNINSTALL_SCRIPT_FILE ${bp_pkg_dir}/rpm/ldconfig.sh)
# Directories the system owns (filesystem package), not ours.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /usr/lib64/pkgconfig
    /usr/lib64/cmake /usr/share/man /usr/share/man/man1 /usr/share/licenses)
# The same bytes from the same commit: build time and file times from
# SOURCE_DATE_EPOCH, no host name. No /usr/lib/.build-id links: there is
# no debuginfo package for them to serve.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define use_source_date_epoch_as_buildtime 1
%define clamp_mtime_to_source_date_epoch 1
%define _buildhost reproducible
%define _build_id_links none")
foreach(comp PLUGIN DEV TOOLS)
  # The Debian description's first line, and the rest.
  string(FIND "${CPACK_DEBIAN_${comp}_DESCRIPTION}" "\n" bp_nl)
  string(SUBSTRING "${CPACK_DEBIAN_${comp}_DESCRIPTION}" 0 ${bp_nl} bp_text)
  set(CPACK_RPM_${comp}_PACKAGE_SUMMARY "${bp_text}")
  math(EXPR bp_nl "${bp_nl} + 1")
  string(SUBSTRING "${CPACK_DEBIAN_${comp}_DESCRIPTION}" ${bp_nl} -1 bp_text)
  set(CPACK_RPM_${comp}_PACKAGE_DESCRIPTION "${bp_text}")
endforeach()

include(CPack)
