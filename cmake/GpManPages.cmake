# SPDX-License-Identifier: MIT
# The man pages: docs/cli/gpuprof.md and every docs/cli/gpuprof-CMD.md become
# man/gpuprof.1 and man/gpuprof-CMD.1 in the build directory, written by
# gpuprof-mkman with the roff back end of src/cli/help-render.c, the renderer
# `gpuprof help CMD` uses for text; installed into share/man/man1.
# Included by the top CMakeLists.txt after the gpuprof target.
include(GNUInstallDirs)

# a build-time tool (not installed): the renderer and a main, libc only
add_executable(gpuprof-mkman ${CMAKE_CURRENT_SOURCE_DIR}/src/cli/tools/mkman.c
                             ${CMAKE_CURRENT_SOURCE_DIR}/src/cli/help-render.c)
target_include_directories(gpuprof-mkman PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/cli)
target_compile_definitions(gpuprof-mkman PRIVATE _GNU_SOURCE)
target_compile_options(gpuprof-mkman PRIVATE ${GP_WARN})

file(GLOB GP_MAN_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/cli/gpuprof.md
     ${CMAKE_CURRENT_SOURCE_DIR}/docs/cli/gpuprof-*.md)
set(GP_MAN_PAGES)
foreach(md IN LISTS GP_MAN_SOURCES)
  get_filename_component(page "${md}" NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/man/${page}.1)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND gpuprof-mkman "gpuprof ${PROJECT_VERSION}" ${md} ${out}
    DEPENDS gpuprof-mkman ${md}
    COMMENT "Writing man page ${page}.1"
    VERBATIM)
  list(APPEND GP_MAN_PAGES ${out})
endforeach()
add_custom_target(gpuprof-man ALL DEPENDS ${GP_MAN_PAGES})

install(FILES ${GP_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT doc)
