# cmake -DSRC=web -DOUT=build/web -P assemble.cmake: the page's files into OUT/dist (web/CMakeLists.txt).
file(REMOVE_RECURSE ${OUT}/dist)
file(MAKE_DIRECTORY ${OUT}/dist/vendor)
file(GLOB page ${SRC}/src/*)
file(COPY ${page} DESTINATION ${OUT}/dist)
if(EXISTS ${OUT}/studio_core.js)
  file(COPY ${OUT}/studio_core.js DESTINATION ${OUT}/dist)
else()
  message(STATUS "studio page: no wasm core (see ${OUT}/wasm-build.log); the page will say so")
endif()
set(three ${OUT}/npm/node_modules/three)
file(COPY ${three}/build/three.module.min.js ${three}/examples/jsm/controls/OrbitControls.js ${three}/LICENSE
     DESTINATION ${OUT}/dist/vendor)
