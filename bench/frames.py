#!/usr/bin/env python3
"""The async frames of a Swift binary, largest first: each async function pointer (a symbol
ending in `Tu`) holds a relative function offset and the size of the function's initial
context, its frame. A respondent's task keeps the frames of its deepest call chain in slabs
of about 1 KB for its whole life (docs/performance.md, "Memory"), so they are worth a look
after a change to Respondent.swift.

    bench/frames.py .build/release/survey-bot [FILTER]     # FILTER: a part of the name
"""
import subprocess, sys, struct
binary = sys.argv[1]
pat = sys.argv[2] if len(sys.argv) > 2 else ''
# sections: map vaddr -> file offset
secs = []
for line in subprocess.run(['readelf','-SW',binary],capture_output=True,text=True).stdout.splitlines():
    p = line.replace('[ ','[').split()
    if len(p) > 6 and p[0].startswith('[') and p[0] != '[Nr]':
        try:
            name, addr, off, size = p[1], int(p[3],16), int(p[4],16), int(p[5],16)
            secs.append((addr, off, size, name))
        except: pass
data = open(binary,'rb').read()
syms = subprocess.run(['nm', binary], capture_output=True, text=True).stdout.splitlines()
out = []
for s in syms:
    parts = s.split()
    if len(parts) != 3 or not parts[2].endswith('Tu'): continue
    addr = int(parts[0],16)
    for a,o,sz,n in secs:
        if a <= addr < a+sz and n != '.bss':
            rel, size = struct.unpack('<iI', data[o+addr-a:o+addr-a+8])
            out.append((size, parts[2]))
            break
dem = subprocess.run(['swift','demangle','--simplified','--compact'], input='\n'.join(n for _,n in out), capture_output=True, text=True).stdout.splitlines()
for (size, n), d in sorted(zip(out, dem), key=lambda x: -x[0][0]):
    if pat in d: print(size, d[:200])
