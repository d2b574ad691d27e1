# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sourced by the check scripts: the counting they share.  Each script ends
# with "NAME: $passed passed, $failed failed", the line scripts/check.sh
# reads.
#
#   pass                 count one check passed
#   fail TEXT...         print "FAIL: TEXT" and count one check failed
#   step WHAT CMD...     print "--- WHAT", run CMD, count it by its status

passed=0
failed=0

pass()
{
	passed=$((passed + 1))
}

fail()
{
	echo "FAIL: $*"
	failed=$((failed + 1))
}

step()
{
	local what=$1

	shift
	echo "--- $what"
	if "$@"; then
		pass
	else
		fail "$what"
	fi
}
