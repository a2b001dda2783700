# libblendsync.so.0 and the install rules: headers, static and shared libraries, the two programs, a
# CMake package (find_package(blendsync): blendsync::core, ::io, ::client, ::server, ::blendsync ...)
# and pkg-config files. Design and the ABI promise: docs/library.md.

set(BSYNC_STATIC_LIBRARIES blendsync_alloc blendsync_core blendsync_platform blendsync_import blendsync_config
    blendsync_replay blendsync_proto blendsync_net blendsync_client blendsync_server)
# Exported names: blendsync_core -> blendsync::core, and so on.
foreach(lib ${BSYNC_STATIC_LIBRARIES})
  string(REPLACE "blendsync_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})
endforeach()
# blendsync::io, the umbrella of platform, import, config and replay (an interface target).
set_target_properties(blendsync_io PROPERTIES EXPORT_NAME io)

set(BSYNC_PUBLIC_INCLUDE_DIRS ${CMAKE_SOURCE_DIR}/shared/include ${CMAKE_SOURCE_DIR}/proto/include
    ${CMAKE_SOURCE_DIR}/proto/net/include ${CMAKE_SOURCE_DIR}/client/include ${CMAKE_SOURCE_DIR}/server/include)

# The shared library: every module (core, allocator, platform, import, config, replay, proto, net,
# client, server) in ONE library,
# so a binding (C#, Python ctypes) loads one file. Its own compilation of the same sources, with
# hidden visibility: only what the public headers mark BSYNC_API is exported
# (tests/cli/shared_symbols.sh checks the exported list against the headers' declarations).
if(BSYNC_BUILD_SHARED)
  set(BSYNC_SHARED_SOURCES "")
  set(BSYNC_SHARED_PRIVATE_INCLUDES "")
  foreach(lib ${BSYNC_STATIC_LIBRARIES})
    get_target_property(src ${lib} SOURCES)
    list(APPEND BSYNC_SHARED_SOURCES ${src})
    # each module's own include directories (e.g. the internal platform layer of io) go along
    get_target_property(inc ${lib} INCLUDE_DIRECTORIES)
    if(inc)
      list(APPEND BSYNC_SHARED_PRIVATE_INCLUDES ${inc})
    endif()
  endforeach()
  add_library(blendsync_shared SHARED ${BSYNC_SHARED_SOURCES})
  target_include_directories(blendsync_shared PRIVATE ${BSYNC_SHARED_PRIVATE_INCLUDES})
  set_target_properties(blendsync_shared PROPERTIES
    OUTPUT_NAME blendsync EXPORT_NAME blendsync
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    C_VISIBILITY_PRESET hidden)
  target_compile_definitions(blendsync_shared PRIVATE BSYNC_BUILDING_SHARED BSYNC_HAVE_SODIUM=1 INTERFACE BSYNC_SHARED)
  foreach(dir ${BSYNC_PUBLIC_INCLUDE_DIRS})
    target_include_directories(blendsync_shared PUBLIC $<BUILD_INTERFACE:${dir}>)
  endforeach()
  target_include_directories(blendsync_shared PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # fix16_t (fixed.h) and ENetHost (net.h) appear in public headers: their include dirs go along.
  target_link_libraries(blendsync_shared PUBLIC blendsync_dep::fixmath blendsync_dep::enet
                        PRIVATE blendsync_dep::cjson blendsync_dep::sodium blendsync_dep::m blendsync_dep::threads)
  if(BSYNC_WITH_ASSIMP)
    target_include_directories(blendsync_shared PRIVATE ${ASSIMP_INCLUDE})
    target_link_libraries(blendsync_shared PRIVATE blendsync_dep::assimp)
    target_compile_definitions(blendsync_shared PUBLIC BSYNC_HAVE_ASSIMP=1)
  endif()
  if(NOT BSYNC_SANITIZE) # the sanitizer runtimes are resolved by the executable, not by the library
    target_link_options(blendsync_shared PRIVATE -Wl,--no-undefined)
  endif()
endif()

# ---------------------------------------------------------------- install
set(BSYNC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/blendsync)
foreach(dir ${BSYNC_PUBLIC_INCLUDE_DIRS})
  install(DIRECTORY ${dir}/blendsync DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
endforeach()
set(BSYNC_INSTALL_TARGETS ${BSYNC_STATIC_LIBRARIES} blendsync_io)
if(BSYNC_BUILD_SHARED)
  list(APPEND BSYNC_INSTALL_TARGETS blendsync_shared)
endif()
install(TARGETS ${BSYNC_INSTALL_TARGETS} EXPORT blendsyncTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS blendsync blendsync-server RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# libblendsync_io.a: the four io libraries merged into the one archive that `-lblendsync_io`
# (pkg-config blendsync-io, and hand-written link lines of earlier versions) names.
set(BSYNC_IO_ARCHIVE ${CMAKE_BINARY_DIR}/${CMAKE_STATIC_LIBRARY_PREFIX}blendsync_io${CMAKE_STATIC_LIBRARY_SUFFIX})
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/blendsync_io.mri CONTENT
"create ${BSYNC_IO_ARCHIVE}
addlib $<TARGET_FILE:blendsync_platform>
addlib $<TARGET_FILE:blendsync_import>
addlib $<TARGET_FILE:blendsync_config>
addlib $<TARGET_FILE:blendsync_replay>
save
end
")
add_custom_command(OUTPUT ${BSYNC_IO_ARCHIVE}
  COMMAND ${CMAKE_COMMAND} -E remove -f ${BSYNC_IO_ARCHIVE}
  COMMAND ${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/blendsync_io.mri
  DEPENDS blendsync_platform blendsync_import blendsync_config blendsync_replay ${CMAKE_BINARY_DIR}/blendsync_io.mri
  COMMENT "Merging the io libraries into ${BSYNC_IO_ARCHIVE}" VERBATIM)
add_custom_target(blendsync_io_archive ALL DEPENDS ${BSYNC_IO_ARCHIVE})
install(FILES ${BSYNC_IO_ARCHIVE} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT blendsyncTargets NAMESPACE blendsync:: DESTINATION ${BSYNC_CMAKE_DIR})

include(CMakePackageConfigHelpers)
# 0.x: a minor version may change the ABI (docs/library.md), so 0.2.x satisfies only 0.2 requests.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/blendsyncConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
configure_file(${CMAKE_SOURCE_DIR}/cmake/blendsyncConfig.cmake.in ${CMAKE_BINARY_DIR}/blendsyncConfig.cmake @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/blendsyncConfig.cmake ${CMAKE_BINARY_DIR}/blendsyncConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/blendsyncDeps.cmake
        DESTINATION ${BSYNC_CMAKE_DIR})

# pkg-config: blendsync (the shared library) and one file per static library. The static files
# list their third-party libraries in Libs (they have no shared form that would carry them).
set(BSYNC_PC_FIXMATH_CFLAGS "")
if(NOT FIXMATH_INCLUDE STREQUAL "/usr/include")
  set(BSYNC_PC_FIXMATH_CFLAGS " -I${FIXMATH_INCLUDE}")
endif()
set(BSYNC_PC_ASSIMP "")
if(BSYNC_WITH_ASSIMP)
  set(BSYNC_PC_ASSIMP " -lassimp")
endif()
# Relocatable: the prefix is found from the .pc file's own place (${pcfiledir}), so an install with
# `cmake --install build --prefix P` works wherever P is.
file(RELATIVE_PATH BSYNC_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
function(bsync_pkg_config name description requires libs)
  set(BSYNC_PC_NAME ${name})
  set(BSYNC_PC_DESCRIPTION ${description})
  set(BSYNC_PC_REQUIRES ${requires})
  set(BSYNC_PC_LIBS ${libs})
  configure_file(${CMAKE_SOURCE_DIR}/cmake/blendsync.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
bsync_pkg_config(blendsync-core "deterministic fixed-point animation core (static)" "" "-lblendsync_core -lblendsync_alloc")
bsync_pkg_config(blendsync-io "blendsync platform layer, importers, configs and replays (static)" "blendsync-core libcjson" "-lblendsync_io${BSYNC_PC_ASSIMP} -lm -lpthread")
bsync_pkg_config(blendsync-proto "blendsync wire protocol and its ENet glue (static)" "blendsync-core blendsync-io libenet libsodium" "-lblendsync_net -lblendsync_proto")
bsync_pkg_config(blendsync-client "blendsync lockstep client library (static)" "blendsync-proto blendsync-io" "-lblendsync_client")
bsync_pkg_config(blendsync-server "blendsync lockstep server library (static)" "blendsync-proto blendsync-io" "-lblendsync_server")
if(BSYNC_BUILD_SHARED)
  bsync_pkg_config(blendsync "deterministic lockstep animation: every module in one shared library" "libenet libsodium" "-lblendsync")
endif()
