"""JUnit XML in the common (Ant/Jenkins) form that CI systems read:
<testsuites> of <testsuite name tests failures errors skipped time timestamp
hostname id package> with <properties>, <testcase classname name time> that
hold at most one of <failure>, <error>, <skipped>, then <system-out>, and the
suite's own <system-out>/<system-err>."""
import socket
import time
import xml.etree.ElementTree as ET

# Characters XML 1.0 cannot carry (logs may hold any byte).
_BAD = dict.fromkeys(c for c in range(0x20) if c not in (0x9, 0xA, 0xD))


def clean(text):
    return str(text if text is not None else '').translate(_BAD)


class Case:
    def __init__(self, classname, name, secs=0.0):
        self.classname, self.name, self.secs = classname, name, secs
        self.result = None          # ('failure'|'error'|'skipped', message, type, text)
        self.out = ''

    def fail(self, message, kind, text=''):
        self.result = ('failure', message, kind, text)

    def error(self, message, kind, text=''):
        self.result = ('error', message, kind, text)

    def skip(self, message):
        self.result = ('skipped', message, None, '')


class Suite:
    def __init__(self, name, package='asgf', properties=None):
        self.name, self.package = name, package
        self.properties = properties or {}
        self.cases = []
        self.out = ''

    def add(self, case):
        self.cases.append(case)
        return case


def to_xml(suites, name='asgf'):
    root = ET.Element('testsuites', name=name)
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    total_time = 0.0
    stamp = time.strftime('%Y-%m-%dT%H:%M:%S')
    host = socket.gethostname()
    for i, s in enumerate(suites):
        counts = dict(tests=len(s.cases), failures=0, errors=0, skipped=0)
        for c in s.cases:
            if c.result:
                counts[{'failure': 'failures', 'error': 'errors', 'skipped': 'skipped'}[c.result[0]]] += 1
        secs = sum(c.secs for c in s.cases)
        el = ET.SubElement(root, 'testsuite', name=clean(s.name), package=clean(s.package), id=str(i),
                           timestamp=stamp, hostname=clean(host), time='%.3f' % secs,
                           **{k: str(v) for k, v in counts.items()})
        props = ET.SubElement(el, 'properties')
        for k, v in s.properties.items():
            ET.SubElement(props, 'property', name=clean(k), value=clean(v))
        for c in s.cases:
            ce = ET.SubElement(el, 'testcase', classname=clean(c.classname), name=clean(c.name),
                               time='%.3f' % c.secs)
            if c.result:
                what, message, kind, text = c.result
                re_ = ET.SubElement(ce, what, message=clean(message))
                if kind:
                    re_.set('type', clean(kind))
                if text:
                    re_.text = clean(text)
            if c.out:
                ET.SubElement(ce, 'system-out').text = clean(c.out)
        ET.SubElement(el, 'system-out').text = clean(s.out)
        ET.SubElement(el, 'system-err').text = ''
        for k in totals:
            totals[k] += counts[k]
        total_time += secs
    for k, v in totals.items():
        root.set(k, str(v))
    root.set('time', '%.3f' % total_time)
    ET.indent(root) if hasattr(ET, 'indent') else None
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'
