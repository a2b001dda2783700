# cmake -DSRC=web -DOUT=build/web -P assemble.cmake: the page's files into OUT/dist (web/CMakeLists.txt).
# Without three.js from npm ci there is no page (blendsync studio says so); without the wasm core the
# page is assembled and says in the page that its core is missing.
file(REMOVE_RECURSE ${OUT}/dist)
set(three ${OUT}/npm/node_modules/three)
if(NOT EXISTS ${three}/build/three.module.min.js)
  message(STATUS "studio page: not assembled (no three.js in ${OUT}/npm/node_modules: npm ci failed)")
  return()
endif()
file(MAKE_DIRECTORY ${OUT}/dist/vendor)
file(GLOB page ${SRC}/src/*)
file(COPY ${page} DESTINATION ${OUT}/dist)
if(EXISTS ${OUT}/studio_core.js AND EXISTS ${OUT}/studio_core.wasm)
  file(COPY ${OUT}/studio_core.js ${OUT}/studio_core.wasm DESTINATION ${OUT}/dist)
else()
  message(STATUS "studio page: no wasm core (see ${OUT}/wasm-build.log); the page will say so")
endif()
file(COPY ${three}/build/three.module.min.js ${three}/examples/jsm/controls/OrbitControls.js ${three}/LICENSE
     DESTINATION ${OUT}/dist/vendor)
