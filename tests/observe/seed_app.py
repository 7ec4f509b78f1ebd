#!/usr/bin/python3
"""seed_app.py: a PyOpenCL program with the structure of the question's script
(../shared/seed/question_script.py), for test_observe.sh: multiprocessing workers, each with
its own context and queue, numpy normal inputs, 10 launches of a decode-like kernel, finish,
read back. Unlike the original it runs on any device (PoCL here), ends after BATCHES batches
per worker and prints the Mbit/s each worker measured over its batches after the first (whose
first launch also compiles the kernel for its work-group size), SIZE symbols per batch.

Usage: seed_app.py WORKERS BATCHES [SIZE]"""
import multiprocessing as mp
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
from mako.template import Template

KERNEL = """
${t} boxplus(${t} a, ${t} b) { return log((1 + exp(a + b)) / (exp(a) + exp(b))); }
kernel void test(global const ${t} *in, global const int *perm, global ${t} *out)
{
    int gid = get_global_id(0);
    int p = gid;
    ${t} t = 0;
    for (int k = 1; k < 10; k++) {
        p = perm[p];
        t = boxplus(in[p], in[gid]);
    }
    out[gid] = t;
}
"""


class Worker(mp.Process):
    def __init__(self, q, batches, size):
        super().__init__()
        self.q, self.batches, self.size = q, batches, size

    def run(self):
        ctx = cl.Context(devices=[cl.get_platforms()[0].get_devices()[0]])
        queue = cl.CommandQueue(ctx)
        prg = cl.Program(ctx, Template(KERNEL).render(t="float")).build()
        size = self.size
        out_buf = cl_array.empty(queue, size, dtype=np.float32)
        in_buf = cl_array.empty(queue, size, dtype=np.float32)
        perm = cl_array.to_device(queue, np.random.permutation(size).astype(np.int32))
        t0 = None
        for _ in range(self.batches):
            data = np.random.normal(size=size).astype(np.float32)
            in_buf.set(data)
            for _ in range(10):
                prg.test(queue, in_buf.shape, None, in_buf.data, perm.data, out_buf.data)
            queue.finish()
            out_buf.get()
            t0 = t0 or time.time()  # from the end of the first batch, whose launch compiles
        self.q.put(((self.batches - 1) * size, time.time() - t0))


def main():
    workers, batches = int(sys.argv[1]), int(sys.argv[2])
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    q = mp.Queue()
    procs = [Worker(q, batches, size) for _ in range(workers)]
    for p in procs:
        p.start()
    results = [q.get() for _ in procs]
    for p in procs:
        p.join()
    for symbols, seconds in results:
        print("{:.3f} Mbit/sec".format(symbols / seconds / 1e6))


if __name__ == '__main__':
    main()
