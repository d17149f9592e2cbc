#!/usr/bin/env python3
"""Summarizes a run of the kacl-acl authorizer bench into the BENCHMARKS.md table.

Usage: cargo bench -p kacl-acl --bench authorizer 2> run.txt; python3 summarize.py run.txt
(reads criterion medians from $CARGO_TARGET_DIR/criterion, default /work/target-acl).
"""
import json, os, re, sys
root = os.path.join(os.environ.get('CARGO_TARGET_DIR', '/work/target-acl'), 'criterion')
out = open(sys.argv[1]).read()
counts = {}
for m in re.finditer(r'counts (\S+): all=(\d+) principal=(\d+) resource=(\d+)', out):
    counts[m.group(1)] = dict(all=int(m.group(2)), principal=int(m.group(3)), resource=int(m.group(4)))
mem = {}
for m in re.finditer(r'memory (\d+) resources, deny ([\d.]+)%: (\d+) ACLs; index (\d+) B = ([\d.]+) B/ACL; oracle (\d+) B = ([\d.]+) B/ACL', out):
    mem['r%s_deny%s' % (m.group(1), m.group(2).rstrip('0').rstrip('.') if '.' in m.group(2) else m.group(2))] = (int(m.group(3)), float(m.group(5)), float(m.group(7)))
def med(group, bench):
    p = os.path.join(root, group, bench, 'new', 'estimates.json')
    if not os.path.exists(p): return None
    return json.load(open(p))['median']['point_estimate']  # ns
def fmt(ns):
    if ns is None: return 'n/a'
    if ns >= 1e6: return '%.1f ms' % (ns/1e6)
    if ns >= 1e3: return '%.2f µs' % (ns/1e3)
    return '%.0f ns' % ns
groups = sorted([g for g in os.listdir(root) if g.startswith('r')], key=lambda g: (int(g[1:].split('_')[0]), float(g.split('deny')[1])))
print('| config | ACLs | authorize (index / oracle) | by_resource_type (index / oracle) | full describe (index, ns/ACL / oracle) | describe by principal (matches; index / oracle) | rare principal (10 matches) | describe by resource (matches; index / oracle) | memory B/ACL (index / oracle) |')
print('|---|---|---|---|---|---|---|---|---|')
for g in groups:
    c = counts.get(g, {})
    a_i, a_o = med(g,'authorize_index'), med(g,'authorize_oracle')
    b_i, b_o = med(g,'by_resource_type_index'), med(g,'by_resource_type_oracle')
    d_i, d_o = med(g,'describe_all_index'), med(g,'describe_all_oracle')
    p_i, p_o = med(g,'describe_principal_index'), med(g,'describe_principal_oracle')
    r_i = med(g,'describe_rare_principal_index')
    n_i, n_o = med(g,'describe_resource_index'), med(g,'describe_resource_oracle')
    m = mem.get(g, (c.get('all',0), 0, 0))
    ratio = lambda i,o: ('%.0f×' % (o/i)) if i and o else ''
    print('| %s | %d | %s / %s (%s) | %s / %s (%s) | %s = %.1f ns / %s (%s) | %d; %s = %.0f ns/match / %s (%s) | %s | %d; %s / %s (%s) | %.1f / %.1f |' % (
        g, c.get('all',0), fmt(a_i), fmt(a_o), ratio(a_i,a_o), fmt(b_i), fmt(b_o), ratio(b_i,b_o),
        fmt(d_i), d_i/c['all'] if c else 0, fmt(d_o), ratio(d_i,d_o),
        c.get('principal',0), fmt(p_i), p_i/c['principal'] if c else 0, fmt(p_o), ratio(p_i,p_o),
        fmt(r_i), c.get('resource',0), fmt(n_i), fmt(n_o), ratio(n_i,n_o), m[1], m[2]))
print()
for g in groups:
    for b in ['metadata_10k_topics_index', 'apply_10k_batch_add_then_remove_index']:
        v = med(g, b)
        if v: print('- %s %s: %s' % (g, b, fmt(v)))
for g in [x for x in os.listdir(root) if x.startswith('add_one')]:
    for b in sorted(os.listdir(os.path.join(root, g))):
        v = med(g, b)
        if v: print('- %s %s: %s' % (g, b, fmt(v)))
