# SPDX-License-Identifier: BSD-3-Clause
# The man page and the bash completion of winent-stream, made at build
# time from the library's table of options (src/base/opttable.c), their
# one source: the man page from the built binary's --help (printed from
# the table, with --version), the completion from the table as
# tools/winent-options prints it.
#
#   share/man/man1/winent-stream.1.gz                 help2man (Debian help2man)
#   share/bash-completion/completions/winent-stream   tools/mkcompletion.sh
#
# Both run what was built, so a cross build makes neither.
if(CMAKE_CROSSCOMPILING)
  message(STATUS "winent-stream: cross build: no man page, no bash completion")
  return()
endif()

find_program(WINENT_HELP2MAN help2man)
if(WINENT_HELP2MAN)
  set(winent_man ${CMAKE_BINARY_DIR}/man/winent-stream.1)
  add_custom_command(OUTPUT ${winent_man} ${winent_man}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    # DESCRIPTION, EXAMPLES, EXIT STATUS and SEE ALSO from cmake/winent-stream.h2m;
    # the version given, not --version's lines about this build.
    COMMAND ${WINENT_HELP2MAN} --no-info --section=1 --name=${WINENT_SUMMARY}
            --version-string=${PROJECT_VERSION}
            --include=${PROJECT_SOURCE_DIR}/cmake/winent-stream.h2m
            --output=${winent_man} $<TARGET_FILE:winent-stream>
    # installed compressed, as Debian's policy has it (man reads either)
    COMMAND gzip -9nf -k ${winent_man}
    DEPENDS winent-stream ${PROJECT_SOURCE_DIR}/cmake/winent-stream.h2m
    COMMENT "Generating the man page winent-stream.1 from --help (help2man)"
    VERBATIM)
  add_custom_target(winent-man ALL DEPENDS ${winent_man})
  install(FILES ${winent_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
else()
  message(STATUS "winent-stream: help2man not found: no man page is built or installed "
                 "(apt-get install help2man)")
endif()

set(winent_completion ${CMAKE_BINARY_DIR}/completion/winent-stream)
add_custom_command(OUTPUT ${winent_completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completion
  COMMAND sh ${PROJECT_SOURCE_DIR}/tools/mkcompletion.sh $<TARGET_FILE:winent-options>
          ${winent_completion}
  DEPENDS winent-options ${PROJECT_SOURCE_DIR}/tools/mkcompletion.sh
  COMMENT "Generating the bash completion of winent-stream from the table of options"
  VERBATIM)
add_custom_target(winent-completion ALL DEPENDS ${winent_completion})
install(FILES ${winent_completion}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT runtime)
