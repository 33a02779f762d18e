#!/usr/bin/env python3
"""The template language against Jinja itself (docs/templates.md, "The
language"): each template below is rendered by `mcgen --render` against
examples/hello/hello.man and by Jinja2 (trim_blocks, lstrip_blocks,
keep_trailing_newline: what mcgen's white-space rules are) against the
same manifest's `--json` model, and the two texts must be equal byte for
byte.  The templates use every construct of issue 18 that Jinja defines
the same way; what docs/templates.md lists as a deviation (`/` without
floats, `true` printed, compact `tojson`) is left out of them.  The
templates of `FILES` are there to include, import and extend.  Last, a
template that extends the built-in header.h.j2 and adds to one of its
blocks must write -um's header and its one line.

Skips, saying so, when Python's jinja2 is not installed (Debian:
python3-jinja2, which ./setup installs).

Prints one line per template and "N passed, N failed, N skipped".
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HELLO = os.path.join(ROOT, "examples", "hello", "hello.man")

FILES = {
    "base.j2": "head\n{% block a %}A{% endblock %}\n"
               "{% block b %}B{% block c %}C{% endblock %}{% endblock %}\ntail\n",
    "mid.j2": "{% extends 'base.j2' %}{% block a %}mid-A[{{ super() }}]{% endblock %}",
    "m.j2": "{% macro hi(n, sep='-') %}hi{{ sep }}{{ n }}{% endmacro %}{% set k = 5 %}dropped",
    "part.j2": "part of {{ providers[0].name }}\n",
}

TEMPLATES = [
    # arithmetic and conditions
    "{{ 7 * 6 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 % -3 }} "
    "{{ 2 ** 10 }} {{ 1 + 2 * 3 ** 2 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }} {{ 10 - 2 - 3 }}\n",
    "{{ 'ab' * 3 }}|{{ 3 * 'ab' }}|{{ ([1] * 3) | join }}|{{ ([1, 2] + [3]) | join }}|"
    "{{ 'a' ~ (1 + 2) }}|{{ 1 ~ 2 + 3 ~ 4 if false }}|{{ '%s=%d' % ('x', 3) }}|{{ '%s!' % 'y' }}|{{ -3 | abs }}\n",
    "{{ 'a' if providers else 'b' }}{{ 'a' if not providers else 'b' }}"
    "{{ 'x' if providers | length > 5 }}|{{ 1 if false else 2 if false else 3 }}\n",
    # and/or give an operand, as in Python
    "{{ 'x' or 'y' }}|{{ '' or 'y' }}|{{ 0 and 5 }}|{{ 2 and 5 }}|{{ [] or [1, 2] | join }}|"
    "{{ providers[0].symbol or providers[0].name }}|{{ (0 or '') | length }}\n",
    # tests, printed through a conditional (Jinja prints True, mcgen true)
    "{% for t in [x is defined, providers[0].name is defined, providers[0].nope is defined, "
    "none is none, 1 is not none, 3 is odd, 4 is even, 9 is divisibleby 3, "
    "9 is divisibleby(4), 'ab' is string, providers[0] is mapping, providers is sequence, "
    "1 is number, true is boolean, 'AB' is upper, 'ab' is lower, 2 is in [1, 2], 3 is ge 2, "
    "1 is eq 1, none is sameas none, providers is iterable] %}"
    "{{ 'T' if t else 'F' }}{% endfor %}\n",
    # literals, dictionaries, slices, range, methods
    "{% set d = {'a': 1, 'b': [2, 3]} %}{% for k, v in d.items() %}{{ k }}={{ v if v is number else v | join }};"
    "{% endfor %} {{ d.keys() | join(',') }} {{ d.values() | length }} {{ d.get('a') }} "
    "{{ d.get('z', 9) }} {% for k in d %}{{ k }}{% endfor %} {{ (1, 2) | join }} "
    "{{ () | length }} {{ 'y' if {'a': 1} == {'a': 1} }} {{ 'y' if [1] in [[1], [2]] }}\n",
    "{% set l = [1, 2, 3, 4, 5] %}{{ l[1:3] | join }} {{ l[::-1] | join }} {{ l[-2:] | join }} "
    "{{ 'hello'[1:4] }} {{ 'hello'[::-1] }} {{ l[::2] | join }} {{ l[5:1:-2] | join }} "
    "{{ l[10:] | length }} {{ l[-10:2] | join }} {{ 'héllo'[1] }} {{ 'héllo'[-4:] }}\n",
    "{{ range(5) | join(',') }} {{ range(2, 10, 3) | join(',') }} "
    "{{ range(10, 0, -3) | join(',') }} {{ range(0) | length }} {{ range(-5, 5)[3] }}\n",
    "{{ 'Hi There'.upper() }} {{ 'ABC'.lower() }} {{ 'y' if 'abc'.startswith('ab') }} "
    "{{ 'y' if 'abc'.endswith('bc') }} {{ 'a-b-c'.replace('-', '+', 1) }} "
    "{{ 'a,b,,c'.split(',') | join('|') }} {{ ' a  b c '.split(none, 1) | join('|') }}"
    "{{ '  xy  '.strip() }}|{{ 'xxyxx'.lstrip('x') }}|{{ ','.join(['a', 'b']) }} "
    "{{ 'abcabc'.find('c') }} {{ 'abcabc'.count('bc') }} {{ 'abc'.count('') }} "
    "{{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }}\n",
    "{% for x in ['a', 'b', 'c', 'd'] %}{{ loop.cycle('o', 'e') }}{{ loop.revindex }}"
    "{{ loop.revindex0 }}{{ loop.index }}{{ loop.index0 }}{{ loop.length }}"
    "{{ '.' if loop.first }}{{ '!' if loop.last }}{% endfor %}\n",
    # filters
    "{{ 'hello world-wide (yes) [ok]' | title }} {{ 'hELLO wORLD' | capitalize }} "
    "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }} "
    "{{ '%s-%05d|%-4s|%x|%X|%#x|%+d|%3d|%%' | format('a', 42, 'b', 255, 255, 255, 5, 7) }} "
    "{{ '%5s|%-5s|%.2s|%o|%c' | format('ab', 'cd', 'xyz', 8, 'q') }}\n",
    "{{ '42' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ '0x1F' | int(base=16) }} "
    "{{ ' -12 ' | int }} {{ true | int }} {{ 12 | string }}{{ 'ab' | length }}\n",
    "{{ [3, 1, 2] | sort | join }} {{ ['b', 'A', 'c'] | sort | join }} "
    "{{ ['b', 'A', 'c'] | sort(case_sensitive=true) | join }} "
    "{{ [3, 1, 2] | sort(reverse=true) | join }} {{ [1, 2, 1, 3] | unique | join }} "
    "{{ ['a', 'A', 'b'] | unique | join }} {{ [1, 2, 3] | reverse | join }} "
    "{{ 'abc' | reverse }} {{ 'abc' | list | join('.') }} {{ [3, 1] | min }}{{ [3, 1] | max }} "
    "{{ [1, 2] | sum(start=10) }} {{ [1, 2] | first }} {{ 'xy' | last }} {{ [4, 5] | count }}\n",
    "{% set p = [{'n': 'b', 'v': 2}, {'n': 'a', 'v': 1}, {'n': 'c', 'v': 3}] %}"
    "{{ p | sort(attribute='n') | map(attribute='v') | join }} "
    "{{ p | selectattr('v', 'gt', 1) | map(attribute='n') | join }} "
    "{{ p | rejectattr('v', 'equalto', 2) | map(attribute='n') | join }} "
    "{{ p | selectattr('x', 'defined') | list | length }} "
    "{{ p | map(attribute='x', default='-') | join }} "
    "{{ [1, 2, 3, 4] | select('odd') | join }} {{ [1, 2, 3, 4] | reject('odd') | join }} "
    "{{ ['a', 'b'] | map('upper') | join }} {{ p | map(attribute='v') | sum }} "
    "{{ p | sum(attribute='v') }} {{ (p | max(attribute='v')).n }} "
    "{{ [0, 1, '', 'x'] | select | list | length }} {{ p | join(',', attribute='n') }} "
    "{{ [1, 2, 3] | select('==', 2) | join }} {{ ['a', 'b'] | map('replace', 'a', 'z') | join }}\n",
    "{{ {'b': 1, 'a': 2} | dictsort | map('first') | join }} "
    "{{ {'b': 1, 'a': 2} | dictsort(by='value') | map('last') | join }} "
    "{{ {'b': 1, 'a': 2} | dictsort(reverse=true) | map('first') | join }} "
    "{{ {'b': 1, 'a': 2} | items | map('first') | join }} {{ x | default('dflt') }} "
    "{{ '' | default('e', true) }} {{ providers[0].nope | d('y') }} {{ [-3, 2] | map('abs') | join }}\n",
    # statements
    "{% raw %}{{ not me }}{% if %}{% endraw %}\nx {%- raw -%}  {{ y }}  {%- endraw -%} z\n",
    "{% set x %}inner {{ 1 + 1 }}{% endset %}[{{ x }}] {% filter upper %}shout {{ 'it' }}"
    "{% endfilter %} {% filter replace('a', 'o') | title %}a cat{% endfilter %} "
    "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}{% if a is defined %}leaked{% endif %}\n",
    "{% macro m(a, b=a + 1) %}{{ a }}-{{ b }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} "
    "{{ m(b=5, a=4) }}\n",
    "{% import 'm.j2' as m %}{{ m.hi(1) }} {{ m.hi(2, sep='+') }} {{ m.k }}\n",
    "{% from 'm.j2' import hi, k as kk %}{{ hi(2) }} {{ kk }}\n",
    "{% include 'part.j2' %}after\n",
    "{% extends 'base.j2' %}ignored{% block b %}new-B({{ super() }}){% endblock %}",
    "{% extends 'mid.j2' %}{% block a %}top-A<{{ super() }}>{% endblock %}"
    "{% block c %}cc{% endblock %}",
    "{% extends 'base.j2' %}{% set z = providers[0].name %}{% block a %}{{ z }}{% endblock %}",
    # the model
    "{% for p in providers %}{{ p.name }} {{ p.guid | upper }}\n"
    "{% for e in p.events | sort(attribute='value', reverse=true) %}"
    "  {{ loop.index }}. {{ e.symbol | default('?') }} {{ e.value * 2 // 3 }}\n"
    "{% endfor %}{% endfor %}",
    "{{ providers | map(attribute='events') | map('length') | sum }} "
    "{{ providers[0].events | map(attribute='symbol') | select('string') | map('lower') "
    "| join(', ') }} {{ providers[0] | dictsort | map('first') | first }}\n",
]


def render_ours(mcgen, tmp, i, text):
    d = os.path.join(tmp, "t%d" % i)
    os.makedirs(d)
    for name, body in FILES.items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(body)
    tpl = os.path.join(d, "t.j2")
    with open(tpl, "w", encoding="utf-8") as f:
        f.write(text)
    out = os.path.join(d, "out.txt")
    r = subprocess.run([mcgen, "--render=%s:%s" % (tpl, out), HELLO], capture_output=True,
                       text=True, cwd=d)
    if r.returncode:
        return "exit %d: %s" % (r.returncode, r.stderr)
    with open(out, encoding="utf-8") as f:
        return f.read()


# A user's template that replaces one block of the built-in header: it
# gives header's keys the names the built-in templates use (their top
# level), then adds to the epilogue.  Its output is -um's header with the
# one line more.
EXTENDS_HEADER = """{% extends "header.h.j2" %}
{% set manifest = header.manifest %}{% set logging = header.logging %}
{% set callout = header.callout %}{% set activity = header.activity %}
{% set write_prefix = header.write_prefix %}{% set any_traits = header.any_traits %}
{% set providers = header.providers %}{% set functions = header.functions %}
{% set messages = header.messages %}
{% block epilogue %}
{{ super() }}
/* my own end: {{ providers | length }} provider(s) */
{% endblock %}
"""


def check_extends_header(mcgen, tmp):
    """(ok, why): the built-in header's blocks, replaced by a user's."""
    tpl = os.path.join(tmp, "myh.j2")
    with open(tpl, "w") as f:
        f.write(EXTENDS_HEADER)
    out = os.path.join(tmp, "myh.h")
    r = subprocess.run([mcgen, "-um", "--render=%s:%s" % (tpl, out), HELLO],
                       capture_output=True, text=True, cwd=tmp)
    if r.returncode:
        return False, "exit %d: %s" % (r.returncode, r.stderr)
    hdir = os.path.join(tmp, "hdr")
    r = subprocess.run([mcgen, "-um", "-h", hdir, "-r", hdir, HELLO], capture_output=True,
                       text=True, cwd=tmp)
    with open(os.path.join(hdir, "hello.h"), newline="") as f:
        want = f.read().replace("\r\n", "\n") + "\n/* my own end: 1 provider(s) */\n"
    with open(out, newline="") as f:
        got = f.read().replace("\r\n", "\n")
    return got == want, "%d bytes, -um's header and a line %d" % (len(got), len(want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcgen", required=True)
    args = ap.parse_args()
    args.mcgen = os.path.abspath(args.mcgen)  # the runs are in temporary directories
    results = {"passed": 0, "failed": 0, "skipped": 0}
    try:
        import jinja2
    except ImportError:
        jinja2 = None
        results["skipped"] = len(TEMPLATES)
        print("SKIP %d templates: Python's jinja2 is not installed (python3-jinja2)"
              % len(TEMPLATES))
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.json")
        r = subprocess.run([args.mcgen, "--json=" + model, HELLO], capture_output=True,
                           cwd=tmp)
        if r.returncode:
            print("FAIL --json: exit %d %s" % (r.returncode, r.stderr))
            return 1
        with open(model, encoding="utf-8") as f:
            values = json.load(f)
        for i, text in enumerate(TEMPLATES if jinja2 else []):
            env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True,
                                     keep_trailing_newline=True,
                                     loader=jinja2.DictLoader(dict(FILES, **{"t.j2": text})))
            try:
                want = env.get_template("t.j2").render(**values)
            except Exception as e:  # a template Jinja refuses is this test's bug
                want = "jinja2: %s" % e
            got = render_ours(args.mcgen, tmp, i, text)
            ok = got == want
            results["passed" if ok else "failed"] += 1
            name = text.splitlines()[0][:70]
            print(("PASS " if ok else "FAIL ") + name +
                  ("" if ok else ": mcgen %r, jinja2 %r" % (got, want)))
        ok, why = check_extends_header(args.mcgen, tmp)
        results["passed" if ok else "failed"] += 1
        print(("PASS " if ok else "FAIL ") + "a template extends header.h.j2 and adds to its "
              "epilogue block: -um's header and one line" + ("" if ok else ": " + why))
    print("%d passed, %d failed, %d skipped" % (results["passed"], results["failed"],
                                                  results["skipped"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
