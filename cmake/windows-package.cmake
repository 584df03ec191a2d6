# Windows packaging (included from the top CMakeLists.txt when WIN32):
# `cpack -G ZIP` in the build directory makes iobench-<version>-win64.zip with
# bin/*.exe, bin/plugins/*.dll, configs/ (the example profiles Windows can
# run), include/ (the plugin header) and doc/: README, LICENSE, the docs and the manual pages
# rendered to plain UTF-8 text, which any Windows editor shows.
find_program(IOB_GROFF groff)
set(IOB_MAN_TEXT "")
if(IOB_GROFF)
  foreach(page ${IOB_MAN_PAGES})
    get_filename_component(name "${page}" NAME)
    set(txt "${CMAKE_BINARY_DIR}/man-text/${name}.txt")
    add_custom_command(OUTPUT "${txt}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/man-text"
      COMMAND sh -c "\"$1\" -mandoc -Tutf8 -P-cbou \"$2\" > \"$3\"" sh "${IOB_GROFF}" "${page}" "${txt}"
      DEPENDS "${page}" VERBATIM)
    list(APPEND IOB_MAN_TEXT "${txt}")
  endforeach()
  add_custom_target(iob_man_text ALL DEPENDS ${IOB_MAN_TEXT})
  install(FILES ${IOB_MAN_TEXT} DESTINATION doc/man)
else()
  message(STATUS "groff not found: the Windows zip holds the manual pages as troff source")
  install(FILES ${IOB_MAN_PAGES} DESTINATION doc/man)
endif()
# The example profiles with the backends Windows has: default.ini on win32,
# direct.ini as it is (direct is unbuffered + write-through there); mmap.ini,
# posix.ini and stdio.ini name backends not built here.
foreach(ini default direct)
  file(READ "${PROJECT_SOURCE_DIR}/configs/${ini}.ini" text)
  string(REPLACE "\nbackend = posix\n" "\nbackend = win32\n" text "${text}")
  file(WRITE "${CMAKE_BINARY_DIR}/configs-win/${ini}.ini" "${text}")
  install(FILES "${CMAKE_BINARY_DIR}/configs-win/${ini}.ini" DESTINATION configs)
endforeach()
install(FILES README.md LICENSE docs/windows.md docs/architecture.md docs/profiles.md docs/outputs.md
        docs/plugin-guide.md docs/security.md docs/performance.md DESTINATION doc)
set(CPACK_GENERATOR "ZIP")
set(CPACK_PACKAGING_INSTALL_PREFIX "")
set(CPACK_PACKAGE_FILE_NAME "iobench-${PROJECT_VERSION}-win64")
set(CPACK_STRIP_FILES OFF) # the host's strip cannot read PE files
