# SPDX-License-Identifier: BSD-3-Clause
# The last test of a sanitizer build: print every report the tests left in
# LOGS (one file per reporting process) and fail when there is one.
file(GLOB reports "${LOGS}/*")
list(LENGTH reports n)
foreach(r ${reports})
  file(READ "${r}" text LIMIT 8000)
  message("==== ${r}\n${text}")
endforeach()
if(n GREATER 0)
  message(FATAL_ERROR "${n} sanitizer reports (above, and in ${LOGS})")
endif()
message("0 sanitizer reports")
