/* saxpy.cl: bandwidth-bound: y = a * x + y, 12 bytes moved per item and one multiply-add.
 * x is an input (standard normals), y an output read back every batch (it starts zeroed), a
 * comes from --arg, n is the item count (--size) by convention.
 *   gputop-decode --kernel kernels/examples/saxpy.cl --arg a=2 -s 16777216 */
kernel void saxpy(global const float *x, global float *y, float a, uint n)
{
	uint i = (uint)get_global_id(0);
	if (i < n)
		y[i] = a * x[i] + y[i];
}
