#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-htmldocs.sh SPHINXBUILD KERNEL_DOC OUTDIR HEADER...
#
# Builds the HTML documentation, Documentation/ with the kernel-doc comments
# of the public headers (Documentation/api.rst), from scratch into OUTDIR
# with sphinx-build -W: any warning of Sphinx, docutils or kernel-doc fails
# the build.  Then every page of Documentation/ must be there, and every
# function the headers declare (scripts/public-functions.sh) must have its
# entry in the API reference.  Ends with "htmldocs: N passed, N failed".

set -u

sphinx_build=$1
kernel_doc=$2
out=$3
shift 3
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

# Nothing written into the source tree (the extension's __pycache__).
export PYTHONDONTWRITEBYTECODE=1

rm -rf "$out"
step "sphinx-build -W: Documentation/ and the kernel-doc, no warning" \
	"$sphinx_build" -b html -W --keep-going -q -d "$out/doctrees" \
	-D kerneldoc_bin="$kernel_doc" Documentation "$out/html"

for rst in Documentation/*.rst; do
	page=$(basename "$rst" .rst).html
	if [ -s "$out/html/$page" ]; then
		pass
	else
		fail "no $out/html/$page for $rst"
	fi
done

for fn in $("$(dirname "$0")/public-functions.sh" "$@"); do
	if grep -q "id=\"c\\.$fn\"" "$out/html/api.html" 2> /dev/null; then
		pass
	else
		fail "$fn is not in the API reference ($out/html/api.html)"
	fi
done

echo "htmldocs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
