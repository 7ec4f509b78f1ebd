/* gather.cl: latency-bound, like the decode kernel: each work item follows a chain of 16
 * dependent indices through a random permutation (idx: the tool fills an integer input with a
 * permutation of 0..N-1), so every load waits for the one before it.
 *   gputop-decode --kernel kernels/examples/gather.cl */
kernel void gather(global const float *in, global const int *idx, global float *out)
{
	int gid = (int)get_global_id(0);
	int p = gid;
	float acc = 0.0f;
	for (int i = 0; i < 16; i++) {
		p = idx[p];
		acc += in[p];
	}
	out[gid] = acc;
}
