import json, sys
def union(ivs, a=None, b=None):
    tot=0; cs=ce=None
    for s,e in sorted(ivs):
        if a is not None: s,e=max(s,a),min(e,b)
        if e<=s: continue
        if cs is None or s>ce:
            if cs is not None: tot+=ce-cs
            cs,ce=s,e
        else: ce=max(ce,e)
    if cs is not None: tot+=ce-cs
    return tot
for path in sys.argv[1:]:
    d=json.load(open(path)); ev=d['traceEvents'] if isinstance(d,dict) else d
    k={}; est={}
    for e in ev:
        if e.get('cat')=='kernel' and e.get('ph')=='X':
            bid=(e['pid'],e['args']['batch']); k.setdefault(bid,[]).append((e['ts'],e['ts']+e['dur']))
            est[bid]=bool(e['args'].get('estimated'))
    ids=sorted(k)
    allk=[iv for b in ids for iv in k[b]]
    t0=min(s for s,_ in allk); t1=max(e for _,e in allk)
    print(path, 'batches',len(ids),'est',sum(est.values()),'dur_s %.3f'%((t1-t0)/1e6),'union %.4f'%(union(allk)/(t1-t0)),'batches/s %.0f'%(len(ids)/(t1-t0)*1e6))
    # rounds: runs of profiled batches
    runs=[]; cur=[]
    for b in ids:
        if not est[b]: cur.append(b)
        elif cur: runs.append(cur); cur=[]
    if cur: runs.append(cur)
    for r in runs[:6]:
        n=len(r); mid=r[n//3:2*n//3]
        a=min(min(s for s,_ in k[b]) for b in mid); bb=max(max(e for _,e in k[b]) for b in mid)
        u=union([iv for b in r for iv in k[b]],a,bb)
        frac=sum(sum(max(0,min(e,bb)-max(s,a)) for s,e in k[b])/sum(e-s for s,e in k[b]) for b in r)
        span=sum(max(e for _,e in k[b])-min(s for s,_ in k[b]) for b in mid)/len(mid)
        busy=sum(sum(e-s for s,e in k[b]) for b in mid)/len(mid)
        print('  round n=%d mid=%d: union/batch %.1f us, mean span %.1f, mean kbusy %.1f, window %.1f us'%(n,len(mid),u/frac,span,busy,bb-a))
    es=[b for b in ids if est[b]]
    if es:
        sp=[union(k[b]) for b in es]
        ext=[max(e for _,e in k[b])-min(s for s,_ in k[b]) for b in es]
        one=sum(1 for b in es if len(k[b])==1)
        print('  estimated: mean union/batch %.1f us, mean extent %.1f us, one interval (more work than time) %d of %d'%(sum(sp)/len(sp),sum(ext)/len(ext),one,len(es)))
    # Gaps in the union of every kernel slice: which batch comes after each, and was it late?
    wr = {}
    for e in ev:
        if e.get('cat') == 'h2d' and e.get('ph') == 'X':
            wr[(e['pid'], e['args']['batch'])] = (e['ts'], e['ts'] + e['dur'])
    order = sorted(ids, key=lambda b: min(s for s, _ in k[b]))
    end = None; gaps = {'after measured': 0.0, 'before measured': 0.0, 'est, write late': 0.0, 'est, write ready': 0.0}
    cnt = dict.fromkeys(gaps, 0)
    for b in order:
        s0 = min(s for s, _ in k[b])
        if end is not None and s0 > end:
            g = s0 - end
            if not est[b]: c = 'before measured'
            elif prev_est is False: c = 'after measured'
            elif b in wr and wr[b][1] > end: c = 'est, write late'
            else: c = 'est, write ready'
            gaps[c] += g; cnt[c] += 1
        e1 = max(e for _, e in k[b]); prev_est = est[b]
        end = e1 if end is None else max(end, e1)
    print('  gaps (share of the span, count):', ', '.join('%s %.4f (%d)' % (c, gaps[c] / (t1 - t0), cnt[c]) for c in gaps))
