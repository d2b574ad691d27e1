# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The ``kernel-doc`` directive: a header's kernel-doc comments in the page.

::

   .. kernel-doc:: include/exec/thread_pool.h

runs the kernel's ``scripts/kernel-doc -rst`` on the file (a path from the
top of the tree) and parses the reST it prints in place of the directive.
kernel-doc's warnings become Sphinx warnings, so ``sphinx-build -W`` fails
on them.  Two configuration values, given by the Makefile with ``-D``:
``kerneldoc_bin``, the kernel-doc script, and ``kerneldoc_srctree``, the top
of the tree.
"""

import os
import re
import subprocess

import sphinx
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import ViewList
from sphinx.util import logging
from sphinx.util.docutils import switch_source_input
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

# kernel-doc -enable-lineno marks where the next lines come from (1-based;
# a ViewList counts from 0).
LINENO = re.compile(r'^\.\. LINENO ([0-9]+)$')


class KernelDocDirective(Directive):
    required_arguments = 1
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        config = env.config
        if not config.kerneldoc_bin:
            raise self.error('kerneldoc_bin is not set (sphinx-build '
                             '-D kerneldoc_bin=.../scripts/kernel-doc)')
        path = os.path.normpath(os.path.join(config.kerneldoc_srctree,
                                             self.arguments[0]))
        env.note_dependency(os.path.abspath(path))

        cmd = [config.kerneldoc_bin, '-rst', '-enable-lineno',
               '-sphinx-version', sphinx.__version__, path]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True,
                                  check=False)
        except OSError as err:
            raise self.error('cannot run %s: %s' % (cmd[0], err))
        for line in done.stderr.splitlines():
            logger.warning('kernel-doc: %s', line,
                           location=(env.docname, self.lineno))
        if done.returncode:
            raise self.error('%s exited with %d' % (' '.join(cmd),
                                                    done.returncode))

        # Each line keeps its place in the header, for the messages.
        content = ViewList()
        lineno = 0
        for line in done.stdout.splitlines():
            mark = LINENO.match(line)
            if mark:
                lineno = int(mark.group(1)) - 1
                continue
            content.append(line, path, lineno)
            lineno += 1

        node = nodes.section()
        node.document = self.state.document
        with switch_source_input(self.state, content):
            nested_parse_with_titles(self.state, content, node)
        return node.children


def setup(app):
    app.add_config_value('kerneldoc_bin', None, 'env')
    app.add_config_value('kerneldoc_srctree', None, 'env')
    app.add_directive('kernel-doc', KernelDocDirective)
    return {'version': '1', 'parallel_read_safe': True,
            'parallel_write_safe': True}
