# SPDX-License-Identifier: MIT
"""help_pages.py GPUPROF SRC_DIR [MAN_DIR] - every command page agrees with the program.

For each command: the options of its getopt table (src/cli/cmd-CMD.c: the long names of
`struct option` and the letters of getopt_long's option string), those its `-h` prints and
those the Options section of docs/cli/gpuprof-CMD.md names are the same sets. Then the help
text: `gpuprof help CMD` has no Markdown left (no link, `**` or backtick outside code), `gpuprof CMD
--help` prints the same, every command of `gpuprof help` has a page and an entry in
docs/cli/gpuprof.md; with MAN_DIR, every page has its man page and groff renders it without
a warning. Prints each disagreement and exits 1 when there is one."""
import os
import re
import shutil
import subprocess
import sys

gpuprof, src = sys.argv[1], sys.argv[2]
man_dir = sys.argv[3] if len(sys.argv) > 3 else None
problems = []
OPT = re.compile(r'(?<![\w-])(--[a-z][\w-]*|-[A-Za-z])(?![\w-])')


def run(*args):
    p = subprocess.run([gpuprof, *args], capture_output=True, text=True, env=dict(os.environ, COLUMNS='80'))
    return p.returncode, p.stdout, p.stderr


def getopt_table(cmd):
    path = os.path.join(src, 'src', 'cli', 'cmd-%s.c' % cmd)
    text = open(path, encoding='utf-8').read()
    longs = {'--' + m for m in re.findall(r'\{\s*"([a-z][\w-]*)",\s*(?:no|required|optional)_argument', text)}
    shorts = set()
    for optstring in re.findall(r'getopt_long\([^;]*?"([^"]*)"', text, re.S):
        shorts |= {'-' + c for c in optstring if c.isalpha()}
    if not longs:
        problems.append('%s: no option table found in %s (the test reads `struct option` entries)' % (cmd, path))
    return longs | shorts


def usage_options(cmd):
    rc, out, err = run(cmd, '-h')
    if rc != 0:
        problems.append('%s: `gpuprof %s -h` exited %d' % (cmd, cmd, rc))
    found = set()
    for line in out.splitlines():
        # option lines: indented, starting with the option(s), the text after two spaces
        m = re.match(r'^\s{2,}(-[^ ].*?)(?:\s{2,}|$)', line)
        if m:
            found |= set(OPT.findall(m.group(1)))
    return found


def page_options(cmd):
    page = open(os.path.join(src, 'docs', 'cli', 'gpuprof-%s.md' % cmd), encoding='utf-8').read()
    m = re.search(r'^## Options\n(.*?)(?=^## |\Z)', page, re.S | re.M)
    if not m:
        problems.append('%s: docs/cli/gpuprof-%s.md has no "## Options" section' % (cmd, cmd))
        return set()
    found = set()
    for line in m.group(1).splitlines():
        # a definition's term (`--top N`) or a table's first cell (| `-w, --warmup N` |)
        if line.startswith('`-'):
            found |= set(OPT.findall(' '.join(re.findall(r'`([^`]*)`', line))))
        elif line.startswith('| `-'):
            found |= set(OPT.findall(line.split('|')[1]))
    return found


def commands():
    rc, out, _ = run('help')
    names = re.findall(r'^   (\S+)\s', out, re.M)
    if not names:
        problems.append('`gpuprof help` lists no command')
    return names


def compare_sets(cmd, a_name, a, b_name, b):
    for o in sorted(a - b):
        problems.append('%s: %s is in %s but not in %s' % (cmd, o, a_name, b_name))
    for o in sorted(b - a):
        problems.append('%s: %s is in %s but not in %s' % (cmd, o, b_name, a_name))


names = commands()
main_page = open(os.path.join(src, 'docs', 'cli', 'gpuprof.md'), encoding='utf-8').read()
for cmd in names:
    rc, text, err = run('help', cmd)
    if rc != 0:
        problems.append('%s: `gpuprof help %s` exited %d: %s' % (cmd, cmd, rc, err.strip()))
        continue
    # the page's code (indented by 4 or more, or fenced) may show Markdown: compare --markdown's
    page = open(os.path.join(src, 'docs', 'cli', 'gpuprof-%s.md' % cmd), encoding='utf-8').read()
    code = {l.strip() for l in page.splitlines() if l.startswith('    ')}
    for bad, why in (('](', 'a Markdown link'), ('**', 'Markdown emphasis'), ('`', 'a code marker')):
        for line in text.splitlines():
            if bad in line and line.strip() not in code:
                problems.append('%s: `gpuprof help %s` shows %s: %r' % (cmd, cmd, why, line.strip()))
    if run(cmd, '--help')[1] != text:
        problems.append('%s: `gpuprof %s --help` differs from `gpuprof help %s`' % (cmd, cmd, cmd))
    if '(gpuprof-%s.md)' % cmd not in main_page:
        problems.append('%s: docs/cli/gpuprof.md does not list it' % cmd)
    if cmd == 'help':
        continue  # help has no getopt table
    table = getopt_table(cmd)
    compare_sets(cmd, 'its getopt table', table, '`gpuprof %s -h`' % cmd, usage_options(cmd))
    compare_sets(cmd, 'its getopt table', table, 'docs/cli/gpuprof-%s.md' % cmd, page_options(cmd))

if man_dir:
    groff = shutil.which('groff')
    pages = sorted(f[:-3] for f in os.listdir(os.path.join(src, 'docs', 'cli')) if f.endswith('.md'))
    for page in pages:
        path = os.path.join(man_dir, page + '.1')
        if not os.path.exists(path):
            problems.append('%s: no man page %s' % (page, path))
        elif groff:
            p = subprocess.run([groff, '-man', '-t', '-ww', '-Tutf8', path], capture_output=True, text=True)
            if p.returncode or p.stderr:
                problems.append('%s: groff warns: %s' % (path, p.stderr.strip()))
            if page != 'gpuprof' and 'NAME\n       %s - ' % page not in re.sub('.\b', '', p.stdout):
                problems.append('%s: no NAME line "%s - ..."' % (path, page))

for p in problems:
    print(p)
print('%d commands, %d problems' % (len(names), len(problems)))
sys.exit(1 if problems else 0)
