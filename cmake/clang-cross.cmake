# Cross builds with clang for tests/cli/platform_matrix.sh (and anyone else): Debian's cross
# C libraries (libc6-dev-<arch>-cross, libgcc-12-dev-<arch>-cross; no gcc-<arch>-linux-gnu, which
# on Debian 12 amd64 would remove gcc-multilib) plus the target's libfixmath, cJSON, cmocka
# and ENet unpacked from Debian's multiarch packages into BSYNC_CROSS_SYSROOT (dpkg -x).
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=cmake/clang-cross.cmake \
#         -DBSYNC_CROSS_TRIPLE=s390x-linux-gnu -DBSYNC_CROSS_SYSROOT=/path/to/unpacked
# Programs run with qemu-user: qemu-s390x -L /usr/s390x-linux-gnu build-s390x/blendsync ...
# (the unpacked libraries are found through the rpath set below).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT BSYNC_CROSS_TRIPLE)
  set(BSYNC_CROSS_TRIPLE $ENV{BSYNC_CROSS_TRIPLE})
endif()
if(NOT BSYNC_CROSS_SYSROOT)
  set(BSYNC_CROSS_SYSROOT $ENV{BSYNC_CROSS_SYSROOT})
endif()
string(REGEX REPLACE "-.*" "" CMAKE_SYSTEM_PROCESSOR "${BSYNC_CROSS_TRIPLE}")
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET ${BSYNC_CROSS_TRIPLE})
# Debian's multiarch library directory name (i686 -> i386-linux-gnu)
string(REPLACE "i686-" "i386-" BSYNC_CROSS_MULTIARCH "${BSYNC_CROSS_TRIPLE}")
set(CMAKE_FIND_ROOT_PATH ${BSYNC_CROSS_SYSROOT} /usr/${BSYNC_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${BSYNC_CROSS_MULTIARCH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath,${BSYNC_CROSS_SYSROOT}/usr/lib/${BSYNC_CROSS_MULTIARCH}")
# i686: the C library is gcc-multilib's (libc6-dev-i386, /usr/lib32), not a cross package under
# /usr/<triple>; clang finds its crt files and libc itself, CMake's find_library needs libm named.
if(BSYNC_CROSS_TRIPLE MATCHES "^i686-")
  set(MATH_LIB /usr/lib32/libm.so CACHE FILEPATH "i386 libm (libc6-dev-i386)")
endif()
