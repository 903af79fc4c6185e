# SPDX-License-Identifier: MIT
# GpInstall.cmake - what `cmake --install` puts where (GNUInstallDirs), libbpf's layout:
#
#   bin/gpuprof                              the CLI
#   LIBDIR/libgpuprof.so.0.1.0, .so.0, .so   the shared library (soname libgpuprof.so.0)
#   LIBDIR/libgpuprof.a                      the static archive
#   LIBDIR/gpuprof/libgpuprof-inject.so      the tracer `gpuprof run` injects (GP_INSTALL_PKGLIBDIR)
#   INCLUDEDIR/gpuprof/*.h                   the public headers and the generated version.h
#   LIBDIR/pkgconfig/gpuprof.pc              pkg-config (written at install time for the prefix used)
#   LIBDIR/cmake/gpuprof/                    the CMake package: find_package(gpuprof) -> gpuprof::gpuprof
#   MANDIR/man1/gpuprof*.1                   the man pages (see the end of this file)
#
# Included by the top-level CMakeLists.txt after the targets exist. The variables
# GP_INSTALL_* (set there, before gpuprof-config.h is written) are compiled into the CLI,
# so that an installed `gpuprof run` finds its tracer and libgpuprof.

include(CMakePackageConfigHelpers)

install(TARGETS gpuprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gpuprof_shared gpuprof_static EXPORT gpuprofTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpuprof_inject LIBRARY DESTINATION ${GP_INSTALL_PKGLIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpuprof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${GP_GENERATED_INCLUDE_DIR}/gpuprof/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuprof)

# pkg-config: the prefix is the one of `cmake --install --prefix P` (known at install time
# only), so the file is made in two steps: everything else now, the prefix when installing
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GP_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(GP_PC_LIBDIR "\${exec_prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GP_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
list(TRANSFORM CMAKE_DL_LIBS PREPEND "-l" OUTPUT_VARIABLE GP_PC_DL)
string(REPLACE ";" " " GP_PC_DL "${GP_PC_DL}")
if(GP_HAVE_ISAL)
  set(GP_PC_LIBS_PRIVATE "-lisal -lpthread -lm ${GP_PC_DL}")
else()
  set(GP_PC_LIBS_PRIVATE "-lz -lpthread -lm ${GP_PC_DL}")
endif()
string(STRIP "${GP_PC_LIBS_PRIVATE}" GP_PC_LIBS_PRIVATE)
set(GP_PC_PREFIX "@GP_PC_PREFIX@") # kept for the second step
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpuprof.pc.in ${PROJECT_BINARY_DIR}/gpuprof.pc.in @ONLY)
install(CODE "
  set(GP_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/gpuprof.pc.in\" \"${PROJECT_BINARY_DIR}/gpuprof.pc\" @ONLY)
")
install(FILES ${PROJECT_BINARY_DIR}/gpuprof.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# the CMake package (relocatable: paths relative to where it is installed)
set(GP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpuprof)
install(EXPORT gpuprofTargets NAMESPACE gpuprof:: DESTINATION ${GP_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuprofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpuprofConfig.cmake INSTALL_DESTINATION ${GP_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR GP_INSTALL_PKGLIBDIR)
# 0.x: a new minor version may break the ABI (a new soname would follow at 1.0)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuprofConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpuprofConfig.cmake
              ${PROJECT_BINARY_DIR}/gpuprofConfigVersion.cmake DESTINATION ${GP_CMAKE_DIR})

# The man pages: generated from docs/cli/*.md and installed into
# ${CMAKE_INSTALL_MANDIR}/man1 by cmake/GpManPages.cmake (included after the gpuprof target).
