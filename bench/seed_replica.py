#!/usr/bin/env python3
"""seed_replica.py: the original experiment's loop in Python, with numpy's own generator.

The original program (a PyOpenCL script) repeats, in each of N processes with its own context:
    data_in = np.random.normal(size=size).astype(dtype)
    input_buffer.set(data_in); 10 x prg.test(...); queue.finish(); output_buffer.get()
This replica runs exactly that line of numpy and the same OpenCL calls, through ctypes on the
system's libOpenCL (PyOpenCL is not needed, so it runs wherever numpy does), in N processes
started with multiprocessing as the original's are. None of the tool's code is used.

Usage: seed_replica.py KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS COPIES
Every copy sets up and runs 3 warm-up batches, then all start together and run SECONDS; prints
one line as bench/seed_replica.c does: copies, batches, seconds, Mbit/s (batches x SIZE / s /
1e6, summed over copies) and the mean generation time per batch (numpy's normal + astype).
"""
import ctypes as C
import multiprocessing as mp
import sys
import time

import numpy as np

cl_int, cl_uint, cl_ulong = C.c_int32, C.c_uint32, C.c_uint64
ptr = C.c_void_p
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_COPY_HOST_PTR = 1 << 2, 1 << 1, 1 << 5
CL_TRUE = 1


def opencl():
    lib = C.CDLL("libOpenCL.so.1")
    sig = {
        "clGetPlatformIDs": (cl_int, [cl_uint, C.POINTER(ptr), C.POINTER(cl_uint)]),
        "clGetDeviceIDs": (cl_int, [ptr, cl_ulong, cl_uint, C.POINTER(ptr), C.POINTER(cl_uint)]),
        "clCreateContext": (ptr, [ptr, cl_uint, C.POINTER(ptr), ptr, ptr, C.POINTER(cl_int)]),
        "clCreateCommandQueueWithProperties": (ptr, [ptr, ptr, ptr, C.POINTER(cl_int)]),
        "clCreateProgramWithSource": (
            ptr, [ptr, cl_uint, C.POINTER(C.c_char_p), ptr, C.POINTER(cl_int)]),
        "clBuildProgram": (cl_int, [ptr, cl_uint, C.POINTER(ptr), C.c_char_p, ptr, ptr]),
        "clCreateKernel": (ptr, [ptr, C.c_char_p, C.POINTER(cl_int)]),
        "clCreateBuffer": (ptr, [ptr, cl_ulong, C.c_size_t, ptr, C.POINTER(cl_int)]),
        "clSetKernelArg": (cl_int, [ptr, cl_uint, C.c_size_t, ptr]),
        "clEnqueueWriteBuffer": (
            cl_int, [ptr, ptr, cl_uint, C.c_size_t, C.c_size_t, ptr, cl_uint, ptr, ptr]),
        "clEnqueueReadBuffer": (
            cl_int, [ptr, ptr, cl_uint, C.c_size_t, C.c_size_t, ptr, cl_uint, ptr, ptr]),
        "clEnqueueNDRangeKernel": (
            cl_int, [ptr, ptr, cl_uint, ptr, C.POINTER(C.c_size_t), ptr, cl_uint, ptr, ptr]),
        "clFinish": (cl_int, [ptr]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def check(rc, what):
    if rc != 0:
        sys.exit("seed_replica.py: %s failed: %d" % (what, rc))


def made(handle, rc, what):
    check(rc.value, what)
    return handle


def device(cl, pi, di):
    n = cl_uint()
    plats = (ptr * 16)()
    check(cl.clGetPlatformIDs(16, plats, C.byref(n)), "clGetPlatformIDs")
    devs = (ptr * 16)()
    check(cl.clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, C.byref(n)), "clGetDeviceIDs")
    return devs[di]


def copy_main(a, ready, go, out):
    cl = opencl()
    rc = cl_int()
    dev = ptr(device(cl, a["pi"], a["di"]))
    ctx = made(cl.clCreateContext(None, 1, C.byref(dev), None, None, C.byref(rc)), rc, "clCreateContext")
    q = made(cl.clCreateCommandQueueWithProperties(ctx, dev, None, C.byref(rc)), rc, "clCreateCommandQueue")
    src = C.c_char_p(open(a["kernel"], "rb").read())
    prog = made(cl.clCreateProgramWithSource(ctx, 1, C.byref(src), None, C.byref(rc)), rc, "clCreateProgram")
    opts = b"-DREAL=double -DUSE_FP64" if a["f64"] else b"-DREAL=float"
    check(cl.clBuildProgram(prog, 1, C.byref(dev), opts, None, None), "clBuildProgram")
    kern = made(cl.clCreateKernel(prog, b"decode", C.byref(rc)), rc, "clCreateKernel")

    size, dtype = a["size"], np.float64 if a["f64"] else np.float32
    nbytes = size * np.dtype(dtype).itemsize
    perm = np.random.permutation(size).astype(np.int32)
    dperm = made(cl.clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, perm.nbytes,
                                   perm.ctypes.data, C.byref(rc)), rc, "clCreateBuffer(perm)")
    din = made(cl.clCreateBuffer(ctx, CL_MEM_READ_ONLY, nbytes, None, C.byref(rc)), rc, "clCreateBuffer(in)")
    dout = made(cl.clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, nbytes, None, C.byref(rc)), rc, "clCreateBuffer(out)")
    for i, m in enumerate((din, dperm, dout)):
        check(cl.clSetKernelArg(kern, i, C.sizeof(ptr), C.byref(ptr(m))), "clSetKernelArg")
    gsize = (C.c_size_t * 1)(size)

    def decode(data_in):
        check(cl.clEnqueueWriteBuffer(q, din, CL_TRUE, 0, nbytes, data_in.ctypes.data, 0, None, None),
              "write")
        for _ in range(a["launches"]):
            check(cl.clEnqueueNDRangeKernel(q, kern, 1, None, gsize, None, 0, None, None), "launch")
        check(cl.clFinish(q), "clFinish")
        data_out = np.empty(size, dtype=dtype)
        check(cl.clEnqueueReadBuffer(q, dout, CL_TRUE, 0, nbytes, data_out.ctypes.data, 0, None, None),
              "read")
        return data_out

    for _ in range(3):
        decode(np.random.normal(size=size).astype(dtype))
    ready.put(True)
    go.wait()
    batches, gen = 0, 0.0
    t0 = t = time.perf_counter()
    while t - t0 < a["seconds"]:
        g0 = time.perf_counter()
        data_in = np.random.normal(size=size).astype(dtype)
        gen += time.perf_counter() - g0
        decode(data_in)
        batches += 1
        t = time.perf_counter()
    out.put((batches, t - t0, gen))


def main(argv):
    if len(argv) != 8:
        sys.stderr.write("usage: seed_replica.py KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS COPIES\n")
        return 2
    pi, di = (int(x) for x in argv[2].split(":"))
    a = dict(kernel=argv[1], pi=pi, di=di, f64=argv[3] == "f64", size=int(argv[4]),
             launches=int(argv[5]), seconds=float(argv[6]))
    copies = int(argv[7])
    ready, out, go = mp.Queue(), mp.Queue(), mp.Event()
    procs = [mp.Process(target=copy_main, args=(a, ready, go, out)) for _ in range(copies)]
    for p in procs:
        p.start()
    try:  # a copy that fails exits with its message and never answers
        for _ in procs:
            ready.get(timeout=300)
        go.set()
        res = [out.get(timeout=a["seconds"] + 300) for _ in procs]
    except Exception:
        for p in procs:
            p.terminate()
        sys.stderr.write("seed_replica.py: a copy failed\n")
        return 1
    for p in procs:
        p.join()
    batches = sum(r[0] for r in res)
    secs = sum(r[1] for r in res) / copies
    gen = sum(r[2] for r in res)
    print("seed_replica.py copies=%d dtype=%s size=%d launches=%d batches=%d seconds=%.3f "
          "mbit_s=%.1f gen_ms_per_batch=%.3f" % (copies, argv[3], a["size"], a["launches"], batches, secs,
                                                 batches * a["size"] / secs / 1e6,
                                                 gen / batches * 1e3 if batches else 0.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
