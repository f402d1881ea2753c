# cpack-mtime.cmake - CPACK_PRE_BUILD_SCRIPTS step: every staged file gets
# SOURCE_DATE_EPOCH as its time, so that a file older than it in the source
# tree (rpmbuild only clamps newer ones) makes no difference to the package.
if(DEFINED ENV{SOURCE_DATE_EPOCH} AND CPACK_TEMPORARY_INSTALL_DIRECTORY)
  execute_process(COMMAND find "${CPACK_TEMPORARY_INSTALL_DIRECTORY}"
                  -exec touch -h -d "@$ENV{SOURCE_DATE_EPOCH}" {} +
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "cpack-mtime: touch failed under ${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
  endif()
  message(STATUS "cpack-mtime: ${CPACK_TEMPORARY_INSTALL_DIRECTORY} at $ENV{SOURCE_DATE_EPOCH}")
endif()
