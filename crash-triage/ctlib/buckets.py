"""Bucket store in the output directory: one directory per signature, plus an
index of processed files so that a re-run only looks at new or changed files."""
import hashlib
import json
import os
import shutil
import time

from . import case as casefmt
from . import jdk as jdklib
from .model import NO_FAULT_REASON, PARSE_VERSION
from .outdir import SPACE, copy_atomic, write_atomic
from .signature import continues, describe

INDEX = 'index.json'
SOURCES = ('hs_err', 'record', 'fuzzer', 'asan')
REPLAY_TRIES = 3            # triage runs that try an artifact whose replay failed to run


def iso(t):
    if t is None:
        return None
    try:
        return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t))
    except (OverflowError, ValueError, OSError):
        return None


def _write_json(path, obj):
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + '\n')


class DamagedStore(Exception):
    """index.json or a bucket.json that is not what triage writes: named, exit 2.
    Not rebuilt silently: a bucket rebuilt from this run's files alone would lose
    the members whose files are gone (reports moved, campaigns cleaned up)."""


def _load_json(path, what, check):
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except UnicodeDecodeError as e:
        raise DamagedStore('%s is damaged (%s: not UTF-8 at byte %d)' % (path, what, e.start))
    except ValueError as e:
        raise DamagedStore('%s is damaged (%s: %s)' % (path, what, e))
    why = check(data)
    if why:
        raise DamagedStore('%s is damaged (%s: %s)' % (path, what, why))
    return data


def _check_index(d):
    if not isinstance(d, dict) or d.get('version') != 1 or not isinstance(d.get('files'), dict):
        return "not a version 1 index with a 'files' object"
    for path, e in d['files'].items():
        if not isinstance(e, dict):
            return 'files[%r] is not an object' % path
        # the fields a run reads back, each of the type it reads
        wrong = next((k for k, ok in (
            ('status', isinstance(e.get('status'), str)),
            ('buckets', isinstance(e.get('buckets', []), list) and all(isinstance(x, str) for x in e.get('buckets', []))),
            ('replay_failures', type(e.get('replay_failures', 0)) is int),
            ('key', isinstance(e.get('key'), str) if e.get('status') == 'counts' or 'key' in e else True),
            ('total', e.get('status') != 'counts' or type(e.get('total')) is int),
            ('size', e.get('size') is None or type(e['size']) is int),
            ('mtime_ns', e.get('mtime_ns') is None or type(e['mtime_ns']) is int)) if not ok), None)
        if wrong:
            return 'files[%r] has no valid %r' % (path, wrong)
    return None


def _check_bucket(d):
    if not isinstance(d, dict) or not isinstance(d.get('members'), list) or not isinstance(d.get('signature'), str):
        return "no 'signature' and 'members'"
    for i, m in enumerate(d['members']):
        if not isinstance(m, dict) or not isinstance(m.get('id'), str) or not isinstance(m.get('path'), str):
            return 'member %d has no id or path' % (i + 1)
    return None


def smallest_member(b):
    """The member of bucket b (as bucket.json holds it) that smallest.case was copied from,
    or None (no smallest case; members of the wrong type, in a file edited by hand, skipped)."""
    mid = (b.get('smallest_case') or {}).get('member')
    return next((m for m in b.get('members') or [] if isinstance(m, dict) and m.get('id') == mid), None)


def replay_rank(m):
    """0 when a member's case is known to fault again in a fresh JVM (a fuzzer artifact,
    which triage replayed to file it, or a case whose replay here gave the bucket's
    signature), 1 when that is not known, 2 when its replay gave no such fault."""
    if m.get('kind') == 'fuzzer':
        return 0
    r = m.get('replayed')
    if not isinstance(r, dict):
        return 1
    return 0 if r.get('same') else 2


class Store:
    def __init__(self, out, rules):
        self.out = out
        self.rules = rules
        self.bdir = os.path.join(out, 'buckets')
        os.makedirs(self.bdir, exist_ok=True)
        self.index = {'version': 1, 'files': {}}
        self.buckets = {}
        self.touched = set()
        self.new_this_run = set()
        self._ids = {}              # signature -> member ids, built when first needed
        p = os.path.join(out, INDEX)
        hint = ('; move it away to start over (the next run re-reads every input, members whose '
                'files are gone are lost), or restore it')
        if os.path.exists(p):
            try:
                self.index = _load_json(p, 'index', _check_index)
            except DamagedStore as e:
                raise DamagedStore(str(e) + hint)
        for sig in sorted(os.listdir(self.bdir)):
            bp = os.path.join(self.bdir, sig, 'bucket.json')
            if not os.path.exists(bp):
                continue            # a bucket whose first save did not complete: its files are re-read
            try:
                self.buckets[sig] = _load_json(bp, 'bucket %s' % sig, _check_bucket)
            except DamagedStore as e:
                raise DamagedStore(str(e) + hint.replace('to start over', 'with index.json to rebuild'))
        self.repaired = self._repair_cases()

    def _repair_cases(self):
        """Case files that are not the length their member says (0 bytes after a full
        disk): removed, and the reports they came from are read again this run, which
        writes them anew; a member whose report is gone loses its case. Returns how many."""
        n = 0
        for sig, b in self.buckets.items():
            d = os.path.join(self.bdir, sig)
            for m in b['members']:
                if not m.get('case'):
                    continue
                p = os.path.join(d, m['case'])
                try:
                    good = os.path.getsize(p) == m.get('case_bytes')
                except OSError:
                    good = False
                if good:
                    continue
                n += 1
                try:
                    os.remove(p)
                except OSError:
                    pass
                m['case'] = m['case_bytes'] = None
                m.pop('case_valid', None)
                e = self.index['files'].get(m['path'])
                if e is not None:
                    e['size'] = None        # not current: read again (forget, add) if a tree holds it
                self.touched.add(sig)
        return n

    # -- index -----------------------------------------------------------------
    def current(self, path, replay_available):
        e = self.index['files'].get(os.path.abspath(path))
        if not e:
            return False
        try:
            st = os.stat(path)
        except OSError:
            return True
        if e.get('size') != st.st_size or e.get('mtime_ns') != st.st_mtime_ns:
            return False
        if e.get('status') == 'needs-replay' and replay_available:
            return False
        if 0 < e.get('replay_failures', 0) < REPLAY_TRIES and replay_available:
            return False            # its replay failed (timed out, did not run): once more
        if e.get('rules') != self.rules_id():
            return False
        return True

    def rules_id(self):
        if getattr(self, '_rules_id', None) is None:
            raw = json.dumps(self.rules.raw, sort_keys=True) + '|top=%d|parse=%d' % (self.rules.top, PARSE_VERSION)
            self._rules_id = hashlib.sha256(raw.encode()).hexdigest()[:12]
        return self._rules_id

    def replay_failures(self, path):
        """How many triage runs in a row failed to replay the artifact at path, as it is
        now (a file that changed since starts again from 0)."""
        e = self.index['files'].get(os.path.abspath(path)) or {}
        try:
            st = os.stat(path)
        except OSError:
            return 0
        if (e.get('size'), e.get('mtime_ns')) != (st.st_size, st.st_mtime_ns):
            return 0
        return e.get('replay_failures', 0)

    def forget(self, path):
        """Drop the members that came from path (the file changed)."""
        ap = os.path.abspath(path)
        e = self.index['files'].pop(ap, None)
        if not e:
            return
        for sig in e.get('buckets', []):
            b = self.buckets.get(sig)
            if not b:
                continue
            b['members'] = [m for m in b['members'] if m['path'] != ap]
            self._ids.pop(sig, None)
            self.touched.add(sig)

    def record_file(self, path, status, reason=None, kind=None, sigs=(), st=None, **more):
        """st: the file's stat taken BEFORE it was read. A file still being written
        (a JVM writing its hs_err) then no longer matches on the next run and is read
        again; a stat taken after the read would freeze the partial content."""
        ap = os.path.abspath(path)
        if st is None:
            try:
                st = os.stat(path)
            except OSError:
                st = None
        size, mt = (st.st_size, st.st_mtime_ns) if st else (None, None)
        e = {'size': size, 'mtime_ns': mt, 'status': status, 'reason': reason, 'kind': kind,
             'buckets': sorted(set(sigs)), 'rules': self.rules_id()}
        e.update(more)
        self.index['files'][ap] = e

    # -- buckets ---------------------------------------------------------------
    def add(self, rep, k=0):
        title = describe(rep, self.rules)
        sig = rep.extra['signature']
        ap = os.path.abspath(rep.path)
        b = self.buckets.get(sig)
        if b is None:
            b = {'signature': sig, 'title': title, 'alt': rep.extra.get('alt'),
                 'frame': rep.extra.get('frame'), 'frames': rep.extra.get('frames'),
                 'module': rep.extra.get('module'),
                 'signal': self.rules.signal_class(rep),
                 'members': [], 'created': iso(time.time())}
            self.buckets[sig] = b
            self.new_this_run.add(sig)
        mid = hashlib.sha1(('%s#%d' % (ap, k)).encode()).hexdigest()[:12]
        t = rep.time
        if t is None:
            try:
                t = os.stat(rep.path).st_mtime
            except OSError:
                t = None
        member = {'id': mid, 'path': ap, 'kind': rep.kind, 'time': t, 'time_iso': iso(t),
                  'pid': rep.pid, 'tid': rep.tid, 'thread': rep.thread,
                  'signal': rep.signal, 'si_code': rep.si_code,
                  'si_addr': None if rep.si_addr is None else '0x%x' % rep.si_addr,
                  'message': rep.message, 'flags': list(rep.flags), 'case': None,
                  'case_bytes': None, 'report_file': rep.extra.get('report_file'),
                  'via': rep.extra.get('via'), 'key': rep.extra.get('key'), 'jdk': jdklib.of_report(rep),
                  'ended_early': bool(rep.extra.get('ended_early')), 'tainted': rep.extra.get('tainted')}
        if rep.extra.get('settings'):
            member['settings'] = rep.extra['settings']
        case = self._write_case(sig, rep)
        if case:
            member['case'], member['case_bytes'], member['case_valid'] = case
            # case files are named by their bytes: what a replay of them gave holds for this
            # member too (crash-triage/ctlib/verify.py does not replay a case twice)
            same = next((m for m in b['members'] if m.get('case') == member['case'] and 'replayed' in m), None)
            if same is not None:
                member['replayed'] = same['replayed']
        ids = self._ids.get(sig)
        if ids is None:
            ids = self._ids[sig] = {m['id'] for m in b['members']}
        if mid in ids:              # the same file given twice
            b['members'] = [m for m in b['members'] if m['id'] != mid]
        b['members'].append(member)
        ids.add(mid)
        if member['jdk'] and not b.get('jdk'):
            b['jdk'] = member['jdk']     # the VM the bucket was found on: repro runs it there
        b['suppressed'] = rep.extra.get('suppressed')
        self.touched.add(sig)
        return sig

    def _write_case(self, sig, rep):
        """Store the report's case in the bucket's cases/, named by its content (the
        same input found again is one file); (relative path, bytes, well-formed) or None."""
        data = rep.case
        if data is None and rep.case_path:
            try:
                with open(rep.case_path, 'rb') as f:
                    data = f.read(1 << 20)
            except OSError:
                data = None
        if data is None:
            return None
        d = os.path.join(self.bdir, sig, 'cases')
        name = hashlib.sha1(data).hexdigest()[:16] + '.case'
        p = os.path.join(d, name)
        try:
            good = os.path.getsize(p) == len(data)
        except OSError:
            good = False
        if not good:
            os.makedirs(d, exist_ok=True)
            write_atomic(p, data)
        return 'cases/' + name, len(data), casefmt.validate(data[:4096]) is None

    def weigh(self):
        """Counts per bucket. A record stands for itself; the faults its core only
        counted (past the per-key cap, see docs/crash-record.md) are added to the bucket
        of the key's first kept record (lowest path), so the result depends on the tree,
        never on the order files were seen in."""
        totals = {}
        for e in self.index['files'].values():
            if e.get('status') == 'counts':
                totals[e['key']] = totals.get(e['key'], 0) + e.get('total', 0)
        kept = {}
        for sig, b in self.buckets.items():
            for m in b['members']:
                if m.get('key'):
                    kept.setdefault(m['key'], []).append((m['path'], m['id'], sig, m))
        # faults of keys none of whose records is in a bucket: those whose records were
        # set aside as probe faults (a SafeFetch stub's), like them; the rest have no
        # record here (the directory's record cap was reached before the key's first
        # fault): counted, but in no bucket
        probes = {e['key'] for e in self.index['files'].values()
                  if e.get('status') == 'ignored' and e.get('key')}
        self.counted_probes = sum(n for k, n in totals.items() if k not in kept and k in probes)
        self.unbucketed = sum(n for k, n in totals.items() if k not in kept and k not in probes)
        extra = {}
        for key, lst in kept.items():
            more = totals.get(key, 0) - len(lst)
            if more > 0:
                _, _, sig, m = min(lst)
                extra.setdefault(sig, []).append((m, more))
        for sig, b in self.buckets.items():
            via = {}
            for m in b['members']:
                v = m.get('via') or 'unknown'
                via[v] = via.get(v, 0) + 1
            dropped = 0
            for m, more in extra.get(sig, []):
                dropped += more
                v = m.get('via') or 'unknown'
                via[v] = via.get(v, 0) + more
            new = (len(b['members']) + dropped, dropped, via)
            if (b.get('count'), b.get('counted_only'), b.get('via')) != new:
                b['count'], b['counted_only'], b['via'] = new
                self.touched.add(sig)

    # what a folded bucket's entry keeps, so that the bucket can stand again on its own
    FOLD_META = ('title', 'alt', 'frame', 'frames', 'module', 'signal', 'created', 'suppressed', 'jdk')

    def fold(self):
        """A bucket all of whose reports ended early (their backtraces ran out before an
        entry, a boundary or the frame limit: the unwinder stopped, not the rules) goes
        into the bucket whose signature starts with the same frames, when there is
        exactly one: the same fault, unwound deeper. Longest first, so a chain of ever
        shorter unwinds ends in the deepest. The target lists what it took ('folded').

        Worked out afresh on every save from each bucket's own reports, as if nothing
        had been folded yet, and earlier folds that no longer hold are undone: a second
        deeper bucket met later makes a folded one ambiguous again. So triage run in
        steps over a growing tree ends where one fresh run over it ends."""
        def frames(b):
            return b.get('frames') or []
        # the buckets as they would stand unfolded: signature -> meta, reports by holder
        base = {}
        for sig, b in self.buckets.items():
            own = [m for m in b['members'] if not m.get('folded_from')]
            if own:
                e = base.setdefault(sig, {'meta': b, 'held': {}})
                e['meta'] = b
                e['held'][sig] = own
            kept = []
            for f in b.get('folded', []):
                took = [m for m in b['members'] if m.get('folded_from') == f['signature']]
                if not took:
                    continue        # its reports were read again as something else: the name goes
                kept.append(f)
                # an older triage kept no meta: the bucket's own if it stands again
                live = self.buckets.get(f['signature'])
                meta = f.get('meta') or (live if live and live['members'] else None)
                if meta is None:
                    continue        # nothing to stand it up with: its reports stay where they are
                e = base.setdefault(f['signature'], {'meta': meta, 'held': {}})
                e['held'][sig] = took
            if len(kept) != len(b.get('folded', [])):
                if kept:
                    b['folded'] = kept
                else:
                    del b['folded']
                self.touched.add(sig)
        home, emptied = {}, set()
        for sig in sorted(base, key=lambda g: (-len(frames(base[g]['meta'])), g)):
            names = frames(base[sig]['meta'])
            ms = [m for held in base[sig]['held'].values() for m in held]
            if not names or not all(m.get('ended_early') for m in ms):
                continue
            sigclass = base[sig]['meta'].get('signal')
            into = [g for g, o in base.items() if g != sig and g not in emptied
                    and continues(frames(o['meta']), o['meta'].get('signal'), names, sigclass)]
            if len(into) == 1:
                home[sig] = into[0]
                emptied.add(sig)
        moved = []
        # Folds undone first: a bucket that stands again is built from its own meta
        # before another bucket's reports come into it.
        for undo in (True, False):
            for sig in sorted(base):
                want = home.get(sig, sig)
                while want in home:
                    want = home[want]
                if (want == sig) != undo:
                    continue
                for holder, ms in sorted(base[sig]['held'].items()):
                    if holder != want:
                        self._move(sig, base[sig]['meta'], ms, holder, want)
                        moved.extend(ms)
        if moved:
            self._reindex({m['path'] for m in moved})

    def _move(self, sig, meta, ms, holder, target):
        """Reports ms of signature sig go from bucket holder to bucket target (sig itself
        when a fold is undone, which stands the bucket up again from meta)."""
        h = self.buckets[holder]
        t = self.buckets.get(target)
        if t is None:               # undone: the bucket was removed when it was folded
            t = self.buckets[target] = {k: meta.get(k) for k in self.FOLD_META}
            t.update(signature=target, members=[])
        src, dst = os.path.join(self.bdir, holder), os.path.join(self.bdir, target)
        gone = {id(m) for m in ms}
        h['members'] = [m for m in h['members'] if id(m) not in gone]
        for m in ms:
            if m.get('case') and os.path.exists(os.path.join(src, m['case'])):
                os.makedirs(os.path.join(dst, 'cases'), exist_ok=True)
                copy_atomic(os.path.join(src, m['case']), os.path.join(dst, m['case']))
            if target == sig:
                m.pop('folded_from', None)
            else:
                m['folded_from'] = sig
            t['members'].append(m)
        if holder != sig and not any(m.get('folded_from') == sig for m in h['members']):
            h['folded'] = [f for f in h.get('folded', []) if f['signature'] != sig]
            if not h['folded']:
                del h['folded']
        if target != sig:
            depth = len(meta.get('frames') or [])
            why = ('their backtraces ended after %d frame%s, the start of this signature'
                   % (depth, '' if depth == 1 else 's'))
            folded = [f for f in t.get('folded', []) if f['signature'] != sig]
            folded.append({'signature': sig, 'title': meta['title'], 'why': why,
                           'meta': {k: meta.get(k) for k in self.FOLD_META}})
            t['folded'] = sorted(folded, key=lambda f: f['signature'])
            self.new_this_run.discard(sig)
        self._ids.pop(holder, None)
        self._ids.pop(target, None)
        self.touched.update((holder, target))

    def _reindex(self, paths):
        """The index's bucket list of each file in paths, from where its reports are now."""
        where = {}
        for sig, b in self.buckets.items():
            for m in b['members']:
                if m['path'] in paths:
                    where.setdefault(m['path'], set()).add(sig)
        for p in paths:
            e = self.index['files'].get(p)
            if e is not None:
                e['buckets'] = sorted(where.get(p, ()))

    def save(self):
        self.fold()
        self.weigh()
        for sig in sorted(self.touched):
            b = self.buckets.get(sig)
            if b is None:
                continue
            d = os.path.join(self.bdir, sig)
            if not b['members']:
                shutil.rmtree(d, ignore_errors=True)
                del self.buckets[sig]
                continue
            os.makedirs(d, exist_ok=True)
            self._finish(b, d)
            _write_json(os.path.join(d, 'bucket.json'), b)
        self.touched.clear()
        _write_json(os.path.join(self.out, INDEX), self.index)

    def _finish(self, b, d):
        ms = b['members']
        ms.sort(key=lambda m: (m['time'] is None, m['time'] or 0, m['path'], m['id']))
        times = [m['time'] for m in ms if m['time'] is not None]
        b['first_seen'] = iso(min(times)) if times else None
        b['last_seen'] = iso(max(times)) if times else None
        b['first_seen_ts'] = min(times) if times else None
        b['last_seen_ts'] = max(times) if times else None
        b['sources'] = {s: sum(1 for m in ms if m['kind'] == s) for s in SOURCES}
        # Every report came after a fault inside a call that changes VM state, in its own
        # process: the bucket may be that fault's aftermath, not a bug of its own.
        taints = [m.get('tainted') for m in ms]
        if taints and all(taints):
            b['tainted'] = taints[0]
        else:
            b.pop('tainted', None)
        # representative: a complete report if there is one, else the earliest
        good = [m for m in ms if not ({'truncated', 'corrupted'} & set(m['flags']))]
        rep = (good or ms)[0]
        if good:
            b.pop('cut', None)
        else:   # every report of it was cut short or damaged: the report tables say so
            b['cut'] = sorted({'truncated', 'corrupted'} & set(rep['flags']))
        copy = 'representative-' + os.path.basename(rep.get('report_file') or rep['path'])
        old = b.get('representative') or {}
        if old.get('path') != rep['path'] or not os.path.exists(os.path.join(d, copy)):
            if old.get('copy') and old.get('copy') != copy:
                try:
                    os.remove(os.path.join(d, old['copy']))
                except OSError:
                    pass
            try:
                copy_atomic(rep.get('report_file') or rep['path'], os.path.join(d, copy))
            except OSError as e:
                if e.errno in SPACE:
                    raise
                copy = old.get('copy') if old.get('path') == rep['path'] else None
        b['representative'] = {'path': rep['path'], 'copy': copy, 'member': rep['id']}
        # drop case files of members that left; pick the smallest case
        cases = [m for m in ms if m.get('case')]
        keep = {m['case'] for m in cases}
        cdir = os.path.join(d, 'cases')
        if os.path.isdir(cdir):
            for name in os.listdir(cdir):
                if 'cases/' + name not in keep:
                    os.remove(os.path.join(cdir, name))
        sp = os.path.join(d, 'smallest.case')
        b.pop('damaged_case', None)
        if cases:
            # the fewest bytes among well-formed cases (repro/minimize need one) of those
            # known to fault again in a fresh JVM, then of those not tried, then the rest
            # (replay_rank); damaged ones (a cut record's hex, an in-flight file of another
            # format) stay in cases/ for a look, never as smallest.case, which the repro
            # command would refuse
            def valid(m):
                if 'case_valid' in m:
                    return m['case_valid']
                try:
                    with open(os.path.join(d, m['case']), 'rb') as f:
                        return casefmt.validate(f.read(4096)) is None
                except OSError:
                    return False
            best = min(cases, key=lambda m: (not valid(m), replay_rank(m), m['case_bytes'], m['id']))
        if cases and valid(best):
            copy_atomic(os.path.join(d, best['case']), sp)
            b['smallest_case'] = {'file': 'smallest.case', 'member': best['id'],
                                  'bytes': best['case_bytes'], 'valid': True,
                                  'replayed': 'artifact' if best['kind'] == 'fuzzer' else best.get('replayed')}
        else:
            if cases:
                b['damaged_case'] = {'file': best['case'], 'member': best['id'], 'count': len(cases)}
            if os.path.exists(sp):
                os.remove(sp)
            b['smallest_case'] = None

    def refinish(self, sig):
        """Chooses a bucket's smallest case again, and saves it, after what is known of
        its members changed (a replay of one of their cases: crash-triage/ctlib/verify.py)."""
        b = self.buckets[sig]
        d = os.path.join(self.bdir, sig)
        self._finish(b, d)
        _write_json(os.path.join(d, 'bucket.json'), b)

    def needs_replay(self):
        return sorted((p, e) for p, e in self.index['files'].items()
                      if e.get('status') == 'needs-replay')

    def invalid(self):
        return sorted((p, e) for p, e in self.index['files'].items() if e.get('status') == 'invalid')

    @staticmethod
    def no_fault(entry):
        """An invalid entry that is a fuzzer artifact whose replay ran and did not fault."""
        return entry.get('kind') == 'fuzzer' and str(entry.get('reason') or '').startswith(NO_FAULT_REASON)
