# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sphinx configuration of the HTML documentation: `make htmldocs` (see the
# Makefile), which gives kerneldoc_bin and kerneldoc_srctree with -D.

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'sphinx'))

project = 'libexec'
author = 'libexec maintainers'
copyright = 'libexec maintainers'


def makefile_version():
    """VERSION_MAJOR.VERSION_MINOR.VERSION_PATCH of the Makefile."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        'Makefile')
    with open(path, encoding='utf-8') as makefile:
        parts = dict(re.findall(r'^VERSION_([A-Z]+) := ([0-9]+)$',
                                makefile.read(), re.M))
    return '%s.%s.%s' % (parts['MAJOR'], parts['MINOR'], parts['PATCH'])


version = release = makefile_version()

extensions = ['kerneldoc_header']

master_doc = 'index'
exclude_patterns = ['sphinx']
primary_domain = 'c'
highlight_language = 'none'

html_theme = 'alabaster'
html_title = 'libexec %s' % release
html_static_path = []
html_last_updated_fmt = None

# Set by the Makefile (sphinx-build -D).
kerneldoc_bin = None
kerneldoc_srctree = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 '..')
