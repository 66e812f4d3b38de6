# SPDX-License-Identifier: BSD-3-Clause
# tests of the inputs area: malformed TIFFs (crafted by
# tests/make_malformed.py), raw files and standard input of the wrong
# length; what is refused, what is accepted, and that a refusal leaves
# the output folder as it was.
winent_sh_test(test_malformed test_malformed.sh)
