# Cross build for 64-bit Windows with Debian's mingw-w64 (gcc-mingw-w64-x86-64):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw64.cmake
# Tests run under wine (Debian wine64) through ctest's cross-compiling
# emulator.  tools/windows.sh does all of it.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(IOB_MINGW_TRIPLE x86_64-w64-mingw32)
# The posix thread model: C11/pthread helpers and the same libgcc everywhere.
find_program(IOB_MINGW_CC NAMES ${IOB_MINGW_TRIPLE}-gcc-posix ${IOB_MINGW_TRIPLE}-gcc REQUIRED)
set(CMAKE_C_COMPILER "${IOB_MINGW_CC}")
set(CMAKE_RC_COMPILER ${IOB_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${IOB_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Debian's wine64 installs /usr/lib/wine/wine64; the wine package adds `wine`.
find_program(IOB_WINE NAMES wine64 wine PATHS /usr/lib/wine /usr/lib64/wine)
if(IOB_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${IOB_WINE}")
endif()
# Static libgcc: the .exe and .dll files need no mingw runtime DLL beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc -static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static-libgcc -static")
