# find_package(licensing) after `cmake --install`: the target licensing::licensing and what it links.
include(CMakeFindDependencyMacro)
find_dependency(CURL 7.84)
find_dependency(OpenSSL 3.0 COMPONENTS Crypto)
find_dependency(cJSON)
find_dependency(Threads)
include("${CMAKE_CURRENT_LIST_DIR}/licensingTargets.cmake")
