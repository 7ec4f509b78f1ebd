/* rng.c: xoshiro256** (Blackman and Vigna, 2018) seeded with splitmix64, with its jump function
 * for independent streams; standard-normal variates by the ziggurat method (Marsaglia and Tsang,
 * 2000) with 256 layers, the layer and the position inside it taken from separate bits of one
 * draw (Doornik, 2005), and the tail by Marsaglia's method (1964); and, at the end, numpy's
 * legacy RandomState normal: Marsaglia's polar method (Marsaglia and Bray, 1964) on MT19937.
 *
 * The ziggurat. Let f(x) = exp(-x^2/2). Layer 0 is the strip [0, x_0] x [0, f(r)] together with
 * the tail beyond r; layer i = 1..255 is the rectangle [0, x_i] x [f(x_i), f(x_{i+1})]; all 256
 * have the same area v:
 *   x_1 = r, x_{i+1} = sqrt(-2 ln(f(x_i) + v / x_i)), x_256 = 0,
 *   v = r f(r) + integral of f from r to infinity, x_0 = v / f(r),
 * where r is the root for which the recursion ends exactly at the top, f(x_255) + v / x_255 = 1:
 *   r = 3.65415288536100877165, v = 0.00492867323397465534736.
 * The tables below hold, for i = 0..255 (zig_f also for i = 256):
 *   zig_w64[i] = x_i 2^-52,  zig_k64[i] = ceil(2^52 x_{i+1} / x_i - 1/2),  zig_f[i] = f(x_i),
 *   zig_w32[i] = x_i 2^-23,  zig_k32[i] = ceil(2^23 x_{i+1} / x_i - 1/2),
 * computed in 60-digit arithmetic and rounded to the nearest double, float or integer. This
 * Python program (with mpmath) prints them, in that order, exactly:
 *
 *   from mpmath import mp, mpf, exp, log, sqrt, erfc, pi, ceil, ldexp
 *   mp.dps = 60
 *   f = lambda x: exp(-x * x / 2)
 *   def ladder(r):  # x_0..x_256 and the top condition's residue
 *       v = r * f(r) + sqrt(pi / 2) * erfc(r / sqrt(2))
 *       x = [v / f(r), r]
 *       while len(x) < 256:
 *           a = f(x[-1]) + v / x[-1]
 *           if a >= 1: return None, 1
 *           x.append(sqrt(-2 * log(a)))
 *       return x + [mpf(0)], f(x[-1]) + v / x[-1] - 1
 *   lo, hi = mpf(3.6), mpf(3.7)
 *   for _ in range(200):
 *       mid = (lo + hi) / 2
 *       x, g = ladder(mid)
 *       lo, hi = (mid, hi) if g > 0 else (lo, mid)
 *   x, _ = ladder(lo)
 *   k = lambda b: [int(ceil(ldexp(x[i + 1] / x[i], b) - 0.5)) for i in range(256)]
 *   w32 = []
 *   for i in range(256):
 *       with mp.workprec(24): w32.append(float(+ldexp(x[i], -23)))
 *   print(k(52), [float(ldexp(t, -52)).hex() for t in x[:256]], [float(f(t)).hex() for t in x],
 *         k(23), [t.hex() for t in w32])
 *
 * A draw. One 64-bit draw gives a uniform layer i, a sign and a cell c, one of 2^52 equal cells
 * across the layer's width (one 32-bit half gives them for a float, with 2^23 cells), and the
 * variate x = +-(c + 1/2) x_i 2^-52. zig_k[i] counts the cells whose midpoint lies below
 * x_{i+1}, inside the part of the layer under the curve: those are returned at once (98.5% of
 * draws; the top layer has none): an integer compare, an exact conversion and one rounded
 * product. Of the rest, a draw in layer 0 lies in the strip beyond r, whose area equals the
 * tail's, and returns a tail variate; one in layer i >= 1 is kept if a uniform height in
 * [f(x_i), f(x_{i+1})] lies below f(x), and otherwise the whole draw is repeated. The result is
 * the normal distribution carried to a grid of 2^52 (2^23) cell midpoints per layer, rounded
 * once to the output type (floats are computed in float).
 *
 * Reproducibility. Values are a pure function of the seed, the stream and the calls made. The
 * tables are constants and the fast path uses only exactly specified IEEE-754 operations in the
 * declared types, so it gives the same bits on any machine that evaluates float and double in
 * their own precision (FLT_EVAL_METHOD 0, as on x86-64 and AArch64); the rare rejection tests
 * call exp() and log() of the C library, whose last bit may differ between libraries, which
 * changes an outcome only when a comparison falls within that bit (of order 1e-16 per test). */
#include "gputop/rng.h"
#include "gputop/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__
/* The sums of products below are specified as two roundings each; keep them so. (GCC does not
 * fuse them in ISO C mode.) */
#pragma STDC FP_CONTRACT OFF
#endif

#define ZIG_LAYERS 256
#define ZIG_R      0x1.d3bb48209ad33p+1 /* 3.65415288536100877165, the start of the tail */

static const uint64_t zig_k64[ZIG_LAYERS] = {
	0xef33d8025ef65ull, 0xf1a5a4b331c4aull, 0xf66c5f7f0302cull, 0xf89fa48a41dfcull, 0xf9e971e014597ull,
	0xfac40582a2874ull, 0xfb606c4005434ull, 0xfbd6581c0b83aull, 0xfc32b2f1e22edull, 0xfc7d26ecd2d23ull,
	0xfcba8d85e11b2ull, 0xfcee204761f9full, 0xfd1a1a7b4c7acull, 0xfd40149e2f012ull, 0xfd613adbd650bull,
	0xfd7e6ef48cf04ull, 0xfd985e1b2ba75ull, 0xfdaf8f82e0283ull, 0xfdc46e529bf13ull, 0xfdd7509c63bfdull,
	0xfde87c57efeaaull, 0xfdf82b02b71aaull, 0xfe068c4ee67afull, 0xfe13c82788314ull, 0xfe20003995557ull,
	0xfe2b5122fe4fdull, 0xfe35d35eeb19cull, 0xfe3f9bffd1e37ull, 0xfe48bd436f458ull, 0xfe51470977280ull,
	0xfe5947338f742ull, 0xfe60c9f38307eull, 0xfe67da0b6abd9ull, 0xfe6e8102aa202ull, 0xfe74c751f6aa5ull,
	0xfe7ab488233bfull, 0xfe804f690a940ull, 0xfe859e07ab1eaull, 0xfe8aa5dc4e8e6ull, 0xfe8f6bd76c5d6ull,
	0xfe93f471d4729ull, 0xfe9843ba947a3ull, 0xfe9c5d62f563aull, 0xfea044c8dd9f7ull, 0xfea3fcffd73e5ull,
	0xfea788d8ee327ull, 0xfeaaeae992257ull, 0xfeae2591a02e9ull, 0xfeb13b00b2d4bull, 0xfeb42d3ad1f9eull,
	0xfeb6fe1c98543ull, 0xfeb9af5ee0cdcull, 0xfebc429a0b691ull, 0xfebeb948e6fd1ull, 0xfec114cb4b335ull,
	0xfec356686c962ull, 0xfec57f50f31feull, 0xfec790a0da978ull, 0xfec98b61230c1ull, 0xfecb708956eb4ull,
	0xfecd4100eb7b8ull, 0xfecefda07fe33ull, 0xfed0a732fe644ull, 0xfed23e76a2fd7ull, 0xfed3c41dea422ull,
	0xfed538d06adffull, 0xfed69d2b9c02bull, 0xfed7f1c38a836ull, 0xfed937237e98dull, 0xfeda6dce938c9ull,
	0xfedb964042cf4ull, 0xfedcb0ece39d3ull, 0xfeddbe422047dull, 0xfedebea76216cull, 0xfedfb27e349ccull,
	0xfee09a22a1447ull, 0xfee175eb83c5aull, 0xfee2462ad8205ull, 0xfee30b2e02ad7ull, 0xfee3c53e12c4full,
	0xfee474a0006cfull, 0xfee51994e57b6ull, 0xfee5b45a32889ull, 0xfee64529e007full, 0xfee6cc3a9bd5eull,
	0xfee749bff37ffull, 0xfee7bdea7b888ull, 0xfee828e7f3dfdull, 0xfee88ae369c7aull, 0xfee8e40557515ull,
	0xfee93473c0a39ull, 0xfee97c524f2e4ull, 0xfee9bbc26af2full, 0xfee9f2e352024ull, 0xfeea21d22e4daull,
	0xfeea48aa29e83ull, 0xfeea678481d24ull, 0xfeea7e7897654ull, 0xfeea8d9c0075eull, 0xfeea95029640full,
	0xfeea94be8333cull, 0xfeea8ce04fa0aull, 0xfeea7d76ed6faull, 0xfeea668fc2d71ull, 0xfeea4836b42abull,
	0xfeea22762ccaeull, 0xfee9f557273f4ull, 0xfee9c0e13485bull, 0xfee9851a829ebull, 0xfee94207e25daull,
	0xfee8f7accc852ull, 0xfee8a60b66343ull, 0xfee84d2484ab3ull, 0xfee7ecf7b06baull, 0xfee7858327b81ull,
	0xfee716c3e077aull, 0xfee6a0b5897f1ull, 0xfee623528b42eull, 0xfee59e9407f41ull, 0xfee51271db086ull,
	0xfee47ee2982f4ull, 0xfee3e3db89b3dull, 0xfee34150ae4bcull, 0xfee29734b6524ull, 0xfee1e579006e0ull,
	0xfee12c0d95a06ull, 0xfee06ae124bc5ull, 0xfedfa1e0fd414ull, 0xfeded0f909980ull, 0xfeddf813c8ad2ull,
	0xfedd171a46e52ull, 0xfedc2df416652ull, 0xfedb3c8746ab3ull, 0xfeda42b85b704ull, 0xfed9406a42cc9ull,
	0xfed8357e4a982ull, 0xfed721d414fe8ull, 0xfed605498c3ddull, 0xfed4dfbad586eull, 0xfed3b10242f4cull,
	0xfed278f844903ull, 0xfed1377358528ull, 0xfecfec47f91b7ull, 0xfece97488c8b4ull, 0xfecd38454fb15ull,
	0xfecbcf0c427feull, 0xfeca5b6911f11ull, 0xfec8dd2500cb4ull, 0xfec75406ceef4ull, 0xfec5bfd29f196ull,
	0xfec42049dafd3ull, 0xfec2752b15a15ull, 0xfec0be31ebde8ull, 0xfebefb16e2e3eull, 0xfebd2b8f449d0ull,
	0xfebb4f4cf9d7cull, 0xfeb965fe62013ull, 0xfeb76f4e284faull, 0xfeb56ae3162b4ull, 0xfeb3585fe2a4bull,
	0xfeb13762fec12ull, 0xfeaf07865e63cull, 0xfeacc85f3d920ull, 0xfeaa797de1cefull, 0xfea81a6d5741aull,
	0xfea5aab32952dull, 0xfea329cf166a4ull, 0xfea0973abe67cull, 0xfe9df2694b6d5ull, 0xfe9b3ac714866ull,
	0xfe986fb939aa2ull, 0xfe95909d388ebull, 0xfe929cc879b1dull, 0xfe8f9387d4ef6ull, 0xfe8c741f0cebcull,
	0xfe893dc840864ull, 0xfe85efb35173bull, 0xfe8289053f08cull, 0xfe7f08d774243ull, 0xfe7b6e37070a2ull,
	0xfe77b823e9e39ull, 0xfe73e5900a701ull, 0xfe6ff55e5f4f2ull, 0xfe6be661e11abull, 0xfe67b75c6d578ull,
	0xfe6366fd91078ull, 0xfe5ef3e138689ull, 0xfe5a5c8e41212ull, 0xfe559f74ebc77ull, 0xfe50baed29525ull,
	0xfe4bad34c095cull, 0xfe46746d47735ull, 0xfe410e99ead7full, 0xfe3b799d0002bull, 0xfe35b33558d4bull,
	0xfe2fb8fb54186ull, 0xfe29885da1b92ull, 0xfe231e9db1ca9ull, 0xfe1c78cbc3f99ull, 0xfe1593c28b84cull,
	0xfe0e6c225a258ull, 0xfe06fe4bc24f2ull, 0xfdff46599ed3full, 0xfdf7401a6b42eull, 0xfdeee708d514eull,
	0xfde6364369f64ull, 0xfddd288342f90ull, 0xfdd3b8118729dull, 0xfdc9debb99a7dull, 0xfdbf95c5bfcd1ull,
	0xfdb4d5dc02e20ull, 0xfda9970105e8cull, 0xfd9dd07a7add3ull, 0xfd9178bad2c8cull, 0xfd848547b08e8ull,
	0xfd76ea9c8e832ull, 0xfd689c08e99ecull, 0xfd598b8920f53ull, 0xfd49a9990b47aull, 0xfd38e4ff0c91eull,
	0xfd272a8e2f450ull, 0xfd1464dd6c4e5ull, 0xfd007bf1dc931ull, 0xfceb54d8fec99ull, 0xfcd4d12f839c4ull,
	0xfcbcce902231aull, 0xfca325e4bde85ull, 0xfc87aa92896a5ull, 0xfc6a2977aee30ull, 0xfc4a67ae25bd1ull,
	0xfc2821037a248ull, 0xfc03060ff6c57ull, 0xfbdab9d040beeull, 0xfbaece9a1e50dull, 0xfb7ec2366fe78ull,
	0xfb49f8d5374c6ull, 0xfb0fb6718b90eull, 0xfacf160d354dcull, 0xfa86fde5b4bf9ull, 0xfa360f581fa73ull,
	0xf9da907dbf509ull, 0xf9724c74dd0daull, 0xf8fa6578325deull, 0xf86f10c6357d3ull, 0xf7cb2ec28449bull,
	0xf707a755396a5ull, 0xf61a5e41ba396ull, 0xf4f469561255bull, 0xf37ed61ffcb17ull, 0xf19470afa44acull,
	0xeef4b817ecab9ull, 0xeb255e9d3f77eull, 0xe51f67ec1eeecull, 0xda354fabd8146ull, 0xc08be98fbc6b6ull,
	0x0000000000000ull,
};

static const double zig_w64[ZIG_LAYERS] = {
	0x1.f493b7815d982p-51, 0x1.d3bb48209ad33p-51, 0x1.b981f3878fdb0p-51, 0x1.a8fdc78947759p-51,
	0x1.9cbee014057aap-51, 0x1.92ee0946f4496p-51, 0x1.8ab0fbfaa7c14p-51, 0x1.839030529f233p-51,
	0x1.7d42df4d6ce8bp-51, 0x1.7799556090672p-51, 0x1.72728f05f7a33p-51, 0x1.6db6b8d09e231p-51,
	0x1.69540be9fe5c2p-51, 0x1.653ce7b006aeap-51, 0x1.61669cf861e4bp-51, 0x1.5dc8a243ad0fep-51,
	0x1.5a5c08b718dd9p-51, 0x1.571b1a94ae41cp-51, 0x1.54011523a7e43p-51, 0x1.5109f53e9ac42p-51,
	0x1.4e3250dcd8903p-51, 0x1.4b7739d6b5a28p-51, 0x1.48d62759c43bdp-51, 0x1.464ce44a73a16p-51,
	0x1.43d9815545e94p-51, 0x1.417a49cb9e5dbp-51, 0x1.3f2dbaa60f475p-51, 0x1.3cf27b31704a6p-51,
	0x1.3ac7570ae88fap-51, 0x1.38ab39256410ap-51, 0x1.369d27a33a840p-51, 0x1.349c405ae12a3p-51,
	0x1.32a7b5e68a4a3p-51, 0x1.30becd256aeeep-51, 0x1.2ee0db1a978f5p-51, 0x1.2d0d43196db97p-51,
	0x1.2b437532a0a53p-51, 0x1.2982ecd770e78p-51, 0x1.27cb2faa8592ep-51, 0x1.261bcc77658e0p-51,
	0x1.24745a4ac9c24p-51, 0x1.22d477a6fd3efp-51, 0x1.213bc9d04cc82p-51, 0x1.1fa9fc2e2d901p-51,
	0x1.1e1ebfbe4ae39p-51, 0x1.1c99ca971a695p-51, 0x1.1b1ad777f2f8fp-51, 0x1.19a1a564eebadp-51,
	0x1.182df74d21262p-51, 0x1.16bf93b9deef5p-51, 0x1.1556448602e3dp-51, 0x1.13f1d69c4096fp-51,
	0x1.129219bbb5d37p-51, 0x1.1136e04207043p-51, 0x1.0fdffefa69fb8p-51, 0x1.0e8d4cf116594p-51,
	0x1.0d3ea34aa3d32p-51, 0x1.0bf3dd1eed449p-51, 0x1.0aacd7571c0c5p-51, 0x1.0969708e8a255p-51,
	0x1.082988f632e18p-51, 0x1.06ed023a72669p-51, 0x1.05b3bf6adb37ep-51, 0x1.047da4e3ef5c7p-51,
	0x1.034a983a902abp-51, 0x1.021a8028fc947p-51, 0x1.00ed447d3a075p-51, 0x1.ff859c118f60bp-52,
	0x1.fd360d22fe785p-52, 0x1.faebb187122bfp-52, 0x1.f8a6604899782p-52, 0x1.f665f20c90168p-52,
	0x1.f42a40fb74d6dp-52, 0x1.f1f328ac25321p-52, 0x1.efc086101eca9p-52, 0x1.ed9237610a73ap-52,
	0x1.eb681c0f76f08p-52, 0x1.e94214b2abf09p-52, 0x1.e72002f97fe23p-52, 0x1.e501c99c1d186p-52,
	0x1.e2e74c4ea46f3p-52, 0x1.e0d06fb49d219p-52, 0x1.debd195522e34p-52, 0x1.dcad2f8fc490cp-52,
	0x1.daa0999206e6ep-52, 0x1.d8973f4d7fba4p-52, 0x1.d691096e7f123p-52, 0x1.d48de1533c647p-52,
	0x1.d28db1037ef20p-52, 0x1.d0906328b8f6ep-52, 0x1.ce95e3068e037p-52, 0x1.cc9e1c73bd690p-52,
	0x1.caa8fbd36a2abp-52, 0x1.c8b66e0eba617p-52, 0x1.c6c6608ec8705p-52, 0x1.c4d8c136e0d1dp-52,
	0x1.c2ed7e5f07a2dp-52, 0x1.c10486cec16a0p-52, 0x1.bf1dc9b81ae82p-52, 0x1.bd3936b2ec0a2p-52,
	0x1.bb56bdb85256ep-52, 0x1.b9764f1e5f73dp-52, 0x1.b797db93f8928p-52, 0x1.b5bb541ce3d04p-52,
	0x1.b3e0aa0e00c01p-52, 0x1.b207cf09a985cp-52, 0x1.b030b4fc3a11bp-52, 0x1.ae5b4e18bb338p-52,
	0x1.ac878cd5af5cfp-52, 0x1.aab563e9ff10ap-52, 0x1.a8e4c64a0313fp-52, 0x1.a715a724aa9a7p-52,
	0x1.a547f9e0bbb8bp-52, 0x1.a37bb21a2c85ep-52, 0x1.a1b0c39f93696p-52, 0x1.9fe7226fad24dp-52,
	0x1.9e1ec2b6f7414p-52, 0x1.9c5798cd5d92ep-52, 0x1.9a919933f99c1p-52, 0x1.98ccb892e2a33p-52,
	0x1.9708ebb70d5efp-52, 0x1.954627903a28bp-52, 0x1.9384612ef0afep-52, 0x1.91c38dc288349p-52,
	0x1.9003a2973b591p-52, 0x1.8e44951446a28p-52, 0x1.8c865aba10c9dp-52, 0x1.8ac8e9205c044p-52,
	0x1.890c35f47f72ep-52, 0x1.875036f7a7ec7p-52, 0x1.8594e1fd1f5bep-52, 0x1.83da2ce899f16p-52,
	0x1.82200dac88677p-52, 0x1.80667a486ea1fp-52, 0x1.7ead68c73dee7p-52, 0x1.7cf4cf3db22fcp-52,
	0x1.7b3ca3c8b140ap-52, 0x1.7984dc8babd94p-52, 0x1.77cd6faeff44ap-52, 0x1.7616535e57320p-52,
	0x1.745f7dc70eeddp-52, 0x1.72a8e516914c7p-52, 0x1.70f27f78b68ecp-52, 0x1.6f3c43161f856p-52,
	0x1.6d8626128d354p-52, 0x1.6bd01e8b343bdp-52, 0x1.6a1a22950b2b3p-52, 0x1.6864283b13139p-52,
	0x1.66ae257c99674p-52, 0x1.64f8104b7260dp-52, 0x1.6341de8a2b0a4p-52, 0x1.618b860a31fc5p-52,
	0x1.5fd4fc89f5e39p-52, 0x1.5e1e37b2f8cd4p-52, 0x1.5c672d17d733fp-52, 0x1.5aafd23241b5ap-52,
	0x1.58f81c60e8515p-52, 0x1.574000e555f79p-52, 0x1.558774e1bb2c9p-52, 0x1.53ce6d56a6650p-52,
	0x1.5214df20a8b5cp-52, 0x1.505abef5e5563p-52, 0x1.4ea001638a606p-52, 0x1.4ce49acb311ddp-52,
	0x1.4b287f602415ep-52, 0x1.496ba32488f30p-52, 0x1.47adf9e66c338p-52, 0x1.45ef773cac75ep-52,
	0x1.44300e83c30a6p-52, 0x1.426fb2da6745fp-52, 0x1.40ae571e09e76p-52, 0x1.3eebede725a85p-52,
	0x1.3d28698561de3p-52, 0x1.3b63bbfb83d06p-52, 0x1.399dd6fb2b267p-52, 0x1.37d6abe05586cp-52,
	0x1.360e2baca52d7p-52, 0x1.3444470265ea4p-52, 0x1.3278ee1f4b933p-52, 0x1.30ac10d6e48dap-52,
	0x1.2edd9e8cba990p-52, 0x1.2d0d862e1b855p-52, 0x1.2b3bb62b82edbp-52, 0x1.29681c719d71dp-52,
	0x1.2792a661dd381p-52, 0x1.25bb40ca96bfep-52, 0x1.23e1d7de9c322p-52, 0x1.2206572c4c6ecp-52,
	0x1.2028a9940a0a3p-52, 0x1.1e48b93e0d431p-52, 0x1.1c666f8f82acfp-52, 0x1.1a81b51ee6d8bp-52,
	0x1.189a71a78da37p-52, 0x1.16b08bfc42020p-52, 0x1.14c3e9f8e9143p-52, 0x1.12d4707310fc1p-52,
	0x1.10e20329515f1p-52, 0x1.0eec84b16086fp-52, 0x1.0cf3d664bcc83p-52, 0x1.0af7d84bc6116p-52,
	0x1.08f869071f40fp-52, 0x1.06f565b72a014p-52, 0x1.04eea9e16a5ffp-52, 0x1.02e40f5398f9dp-52,
	0x1.00d56e04234eep-52, 0x1.fd8537dfa2eb1p-53, 0x1.f956d9e87d7b2p-53, 0x1.f51f654d8f68cp-53,
	0x1.f0de784f0622ap-53, 0x1.ec93abdf982d2p-53, 0x1.e83e9337a6f04p-53, 0x1.e3debb5d2ee02p-53,
	0x1.df73aa9f17656p-53, 0x1.dafce0023b8c8p-53, 0x1.d679d29e41f14p-53, 0x1.d1e9f0e80b74bp-53,
	0x1.cd4c9fe72268fp-53, 0x1.c8a13a5323b66p-53, 0x1.c3e70f9594ef8p-53, 0x1.bf1d62abf8239p-53,
	0x1.ba4368e529f40p-53, 0x1.b558487427a2fp-53, 0x1.b05b16d136ca2p-53, 0x1.ab4ad6e101636p-53,
	0x1.a62676d77cd5fp-53, 0x1.a0eccdca4a731p-53, 0x1.9b9c98e38c54dp-53, 0x1.96347822c1ef0p-53,
	0x1.90b2ea94ecf9ep-53, 0x1.8b1649e7b769fp-53, 0x1.855cc53430a7dp-53, 0x1.7f845ad46f549p-53,
	0x1.798ad10b32a7ep-53, 0x1.736dad346f8adp-53, 0x1.6d2a292000576p-53, 0x1.66bd261a37c44p-53,
	0x1.60231cfd97ef1p-53, 0x1.59580a707ce9cp-53, 0x1.52575621ad379p-53, 0x1.4b1bb363dfeadp-53,
	0x1.439ef8dff9b5ap-53, 0x1.3bd9ec1a2b134p-53, 0x1.33c3fc05791fap-53, 0x1.2b52e3863d885p-53,
	0x1.227a28f7a1afap-53, 0x1.192a69741367dp-53, 0x1.0f5053b025d4ap-53, 0x1.04d32278ebbb4p-53,
	0x1.f32482d4cd5d0p-54, 0x1.dac2f5a747281p-54, 0x1.c004d2f386207p-54, 0x1.a230c2e4cd0cbp-54,
	0x1.801fce82fa71ap-54, 0x1.57cb938443b71p-54, 0x1.250af3c2c5bc6p-54, 0x1.b8d0be3fdf702p-55,
};

static const double zig_f[ZIG_LAYERS + 1] = {
	0x1.f4a946f13842fp-12, 0x1.4a605b6b9f70dp-10, 0x1.55f9f43c1b070p-9, 0x1.08a1f03b0b205p-8,
	0x1.69ea8d90cb864p-8,  0x1.ce160f8ec683cp-8,  0x1.1a59229952f95p-7, 0x1.4eb96421acfe7p-7,
	0x1.841040d8da47ep-7,  0x1.ba48d274f8fb3p-7,  0x1.f152a4f72dd53p-7, 0x1.149033460301ap-6,
	0x1.30d388dab5e1ap-6,  0x1.4d6eaf2fbb067p-6,  0x1.6a5daf40bbf87p-6, 0x1.879d1b600c10bp-6,
	0x1.a529f4e22ebf4p-6,  0x1.c301983cd0912p-6,  0x1.e121adb828c69p-6, 0x1.ff881d718a5b5p-6,
	0x1.0f1982e968009p-5,  0x1.1e9059f1f6ab6p-5,  0x1.2e27ce83df495p-5, 0x1.3ddf2ce98eec7p-5,
	0x1.4db5d0e11275cp-5,  0x1.5dab23cf2add1p-5,  0x1.6dbe9b398d062p-5, 0x1.7defb77af271cp-5,
	0x1.8e3e02a68b5a9p-5,  0x1.9ea90f9295561p-5,  0x1.af30790385f6fp-5, 0x1.bfd3e0f282a2cp-5,
	0x1.d092efeadf162p-5,  0x1.e16d547b25185p-5,  0x1.f262c2b6c6e33p-5, 0x1.01b979e30e496p-4,
	0x1.0a4ed2c159622p-4,  0x1.12f14d0f2179dp-4,  0x1.1ba0cbe97897ep-4, 0x1.245d344dd0d8fp-4,
	0x1.2d266cf9b310dp-4,  0x1.35fc5e4d93e69p-4,  0x1.3edef23269a81p-4, 0x1.47ce1401b2212p-4,
	0x1.50c9b06fa2babp-4,  0x1.59d1b5774669dp-4,  0x1.62e6124854d10p-4, 0x1.6c06b73694a46p-4,
	0x1.753395aaa116dp-4,  0x1.7e6ca013eefccp-4,  0x1.87b1c9dbf2846p-4, 0x1.9103075a4a09fp-4,
	0x1.9a604dc9d5b0bp-4,  0x1.a3c9933ea627bp-4,  0x1.ad3ece9caf627p-4, 0x1.b6bff78f2e228p-4,
	0x1.c04d0680b100ap-4,  0x1.c9e5f493b7404p-4,  0x1.d38abb9bd91dcp-4, 0x1.dd3b56176e88bp-4,
	0x1.e6f7bf29aa546p-4,  0x1.f0bff29520e16p-4,  0x1.fa93ecb6b222bp-4, 0x1.0239d54067d29p-3,
	0x1.072f94bb8bf84p-3,  0x1.0c2b33d5209b9p-3,  0x1.112cb1da26eb8p-3, 0x1.16340e5a82d62p-3,
	0x1.1b41492757d42p-3,  0x1.2054625183c34p-3,  0x1.256d5a2835eb6p-3, 0x1.2a8c3137a071bp-3,
	0x1.2fb0e847c2a65p-3,  0x1.34db805b4ab89p-3,  0x1.3a0bfaae8d7eep-3, 0x1.3f4258b6931afp-3,
	0x1.447e9c20375d6p-3,  0x1.49c0c6cf5ce30p-3,  0x1.4f08dade31fc6p-3, 0x1.5456da9c8683bp-3,
	0x1.59aac88f31d74p-3,  0x1.5f04a76f88400p-3,  0x1.64647a2adf1a4p-3, 0x1.69ca43e21f261p-3,
	0x1.6f3607e964719p-3,  0x1.74a7c9c7ab5a8p-3,  0x1.7a1f8d368a323p-3, 0x1.7f9d5621f7174p-3,
	0x1.852128a819a38p-3,  0x1.8aab09192815ap-3,  0x1.903afbf74fa68p-3, 0x1.95d105f6a7c27p-3,
	0x1.9b6d2bfd2fe5ap-3,  0x1.a10f7322d7e3cp-3,  0x1.a6b7e0b19267cp-3, 0x1.ac667a2571805p-3,
	0x1.b21b452ccd13ap-3,  0x1.b7d647a8731abp-3,  0x1.bd9787abe18a2p-3, 0x1.c35f0b7d89d46p-3,
	0x1.c92cd9971df52p-3,  0x1.cf00f8a5e6fcap-3,  0x1.d4db6f8b2514cp-3, 0x1.dabc455c79006p-3,
	0x1.e0a3816457181p-3,  0x1.e6912b2283cd9p-3,  0x1.ec854a4c99c3ep-3, 0x1.f27fe6ce998ccp-3,
	0x1.f88108cb8322fp-3,  0x1.fe88b89df93bcp-3,  0x1.024b7f6c7747ap-2, 0x1.0555f2242e9d4p-2,
	0x1.0863b8f904331p-2,  0x1.0b74d88b242d4p-2,  0x1.0e895598709bdp-2, 0x1.11a134fcf241dp-2,
	0x1.14bc7bb34ee63p-2,  0x1.17db2ed5454e5p-2,  0x1.1afd539c2f04cp-2, 0x1.1e22ef6188113p-2,
	0x1.214c079f7cc9cp-2,  0x1.2478a1f17de86p-2,  0x1.27a8c414db11bp-2, 0x1.2adc73e963fdap-2,
	0x1.2e13b77210764p-2,  0x1.314e94d5af62dp-2,  0x1.348d125f9d19cp-2, 0x1.37cf368081376p-2,
	0x1.3b1507cf143acp-2,  0x1.3e5e8d08ed2d8p-2,  0x1.41abcd1357a18p-2, 0x1.44fccefc324fcp-2,
	0x1.485199fad6ad4p-2,  0x1.4baa357109ca2p-2,  0x1.4f06a8ebf6d91p-2, 0x1.5266fc2533beap-2,
	0x1.55cb3703d00fdp-2,  0x1.5933619d6eebcp-2,  0x1.5c9f84376c241p-2, 0x1.600fa7480d2c6p-2,
	0x1.6383d377be513p-2,  0x1.66fc11a25cbdfp-2,  0x1.6a786ad88de1ep-2, 0x1.6df8e86124ca6p-2,
	0x1.717d93ba96148p-2,  0x1.7506769c7b1e8p-2,  0x1.78939af9252e6p-2, 0x1.7c250aff414acp-2,
	0x1.7fbad11b8d90dp-2,  0x1.8354f7faa0dd5p-2,  0x1.86f38a8ac5ab2p-2, 0x1.8a9693fde9185p-2,
	0x1.8e3e1fcb9f113p-2,  0x1.91ea39b33cb13p-2,  0x1.959aedbe09f8fp-2, 0x1.995048418c0c3p-2,
	0x1.9d0a55e1e93dcp-2,  0x1.a0c923946843bp-2,  0x1.a48cbea20c04bp-2, 0x1.a85534aa4d87dp-2,
	0x1.ac2293a5f5a9ap-2,  0x1.aff4e9ea18550p-2,  0x1.b3cc462b331c8p-2, 0x1.b7a8b78071319p-2,
	0x1.bb8a4d6716d8fp-2,  0x1.bf7117c616a14p-2,  0x1.c35d26f1d2cb5p-2, 0x1.c74e8bb00d7c3p-2,
	0x1.cb45573c0a843p-2,  0x1.cf419b4ae5b69p-2,  0x1.d3436a102107bp-2, 0x1.d74ad6426de2dp-2,
	0x1.db57f320b56abp-2,  0x1.df6ad47763a03p-2,  0x1.e3838ea5f9b7ep-2, 0x1.e7a236a4ec3bfp-2,
	0x1.ebc6e20bd1f4fp-2,  0x1.eff1a717e8f8ep-2,  0x1.f4229cb2f7aecp-2, 0x1.f859da7a900c4p-2,
	0x1.fc9778c7bbd9bp-2,  0x1.006dc85b8cac2p-1,  0x1.02931e18b8228p-1, 0x1.04bbcafa63f2bp-1,
	0x1.06e7dccf03c33p-1,  0x1.091761d995d7dp-1,  0x1.0b4a68d70d9abp-1, 0x1.0d8101041429cp-1,
	0x1.0fbb3a232590fp-1,  0x1.11f9248311f34p-1,  0x1.143ad105ea998p-1, 0x1.16805128639d6p-1,
	0x1.18c9b709b3c4dp-1,  0x1.1b171573fd10ep-1,  0x1.1d687fe549966p-1, 0x1.1fbe0a992961dp-1,
	0x1.2217ca92ff7eep-1,  0x1.2475d5a90db80p-1,  0x1.26d84290504e9p-1, 0x1.293f28e93cd11p-1,
	0x1.2baaa14d79545p-1,  0x1.2e1ac55ea3beap-1,  0x1.308fafd6438ebp-1, 0x1.33097c9703a32p-1,
	0x1.358848bf550e6p-1,  0x1.380c32bda00d2p-1,  0x1.3a955a662cd0bp-1, 0x1.3d23e10af31a1p-1,
	0x1.3fb7e99585b7fp-1,  0x1.425198a355fe0p-1,  0x1.44f114a493676p-1, 0x1.479685fdf500fp-1,
	0x1.4a42172dc5276p-1,  0x1.4cf3f4f494ebep-1,  0x1.4fac4e820b665p-1, 0x1.526b55a656cd3p-1,
	0x1.55313f08d9e44p-1,  0x1.57fe4264c8d8cp-1,  0x1.5ad29acc85c85p-1, 0x1.5dae86f4aff66p-1,
	0x1.6092498802661p-1,  0x1.637e298550c15p-1,  0x1.667272a92e320p-1, 0x1.696f75e513b26p-1,
	0x1.6c7589e635a86p-1,  0x1.6f850baea7aebp-1,  0x1.729e5f43f6d0ep-1, 0x1.75c1f0770d852p-1,
	0x1.78f033ca0b0d2p-1,  0x1.7c29a779c6855p-1,  0x1.7f6ed4b20e2c8p-1, 0x1.82c050f56cf6bp-1,
	0x1.861ebfc37bca8p-1,  0x1.898ad48badefep-1,  0x1.8d0554fe60aa4p-1, 0x1.908f1bd31714bp-1,
	0x1.94291c21b7a43p-1,  0x1.97d4657617abep-1,  0x1.9b9228d24067ep-1, 0x1.9f63bee651fd5p-1,
	0x1.a34aafdf5af0cp-1,  0x1.a748bd550c9dep-1,  0x1.ab5fef17a2502p-1, 0x1.af92a3f6ce8a0p-1,
	0x1.b3e3a8234dd0ep-1,  0x1.b85653a8ff54fp-1,  0x1.bceeb4ee1dc7fp-1, 0x1.c1b1cd9eebae7p-1,
	0x1.c6a5ecea9787cp-1,  0x1.cbd33a8a72de8p-1,  0x1.d144978a119d9p-1, 0x1.d70920657bcefp-1,
	0x1.dd36fa704de92p-1,  0x1.e3f11e027f074p-1,  0x1.eb7545b6ca912p-1, 0x1.f446ac979f084p-1,
	0x1.0000000000000p+0,
};

static const uint32_t zig_k32[ZIG_LAYERS] = {
	0x7799ecu, 0x78d2d2u, 0x7b3630u, 0x7c4fd2u, 0x7cf4b9u, 0x7d6203u, 0x7db036u, 0x7deb2cu, 0x7e1959u,
	0x7e3e93u, 0x7e5d47u, 0x7e7710u, 0x7e8d0du, 0x7ea00au, 0x7eb09du, 0x7ebf37u, 0x7ecc2fu, 0x7ed7c8u,
	0x7ee237u, 0x7eeba8u, 0x7ef43eu, 0x7efc16u, 0x7f0346u, 0x7f09e4u, 0x7f1000u, 0x7f15a9u, 0x7f1aeau,
	0x7f1fceu, 0x7f245fu, 0x7f28a4u, 0x7f2ca4u, 0x7f3065u, 0x7f33edu, 0x7f3741u, 0x7f3a64u, 0x7f3d5au,
	0x7f4028u, 0x7f42cfu, 0x7f4553u, 0x7f47b6u, 0x7f49fau, 0x7f4c22u, 0x7f4e2fu, 0x7f5022u, 0x7f51feu,
	0x7f53c4u, 0x7f5575u, 0x7f5713u, 0x7f589eu, 0x7f5a17u, 0x7f5b7fu, 0x7f5cd8u, 0x7f5e21u, 0x7f5f5du,
	0x7f608au, 0x7f61abu, 0x7f62c0u, 0x7f63c8u, 0x7f64c6u, 0x7f65b8u, 0x7f66a1u, 0x7f677fu, 0x7f6854u,
	0x7f691fu, 0x7f69e2u, 0x7f6a9cu, 0x7f6b4fu, 0x7f6bf9u, 0x7f6c9cu, 0x7f6d37u, 0x7f6dcbu, 0x7f6e58u,
	0x7f6edfu, 0x7f6f5fu, 0x7f6fd9u, 0x7f704du, 0x7f70bbu, 0x7f7123u, 0x7f7186u, 0x7f71e3u, 0x7f723au,
	0x7f728du, 0x7f72dau, 0x7f7323u, 0x7f7366u, 0x7f73a5u, 0x7f73dfu, 0x7f7414u, 0x7f7445u, 0x7f7472u,
	0x7f749au, 0x7f74beu, 0x7f74deu, 0x7f74f9u, 0x7f7511u, 0x7f7524u, 0x7f7534u, 0x7f753fu, 0x7f7547u,
	0x7f754bu, 0x7f754au, 0x7f7546u, 0x7f753fu, 0x7f7533u, 0x7f7524u, 0x7f7511u, 0x7f74fbu, 0x7f74e0u,
	0x7f74c3u, 0x7f74a1u, 0x7f747cu, 0x7f7453u, 0x7f7427u, 0x7f73f6u, 0x7f73c3u, 0x7f738bu, 0x7f7350u,
	0x7f7312u, 0x7f72cfu, 0x7f7289u, 0x7f723fu, 0x7f71f2u, 0x7f71a1u, 0x7f714cu, 0x7f70f3u, 0x7f7096u,
	0x7f7035u, 0x7f6fd1u, 0x7f6f68u, 0x7f6efcu, 0x7f6e8cu, 0x7f6e17u, 0x7f6d9eu, 0x7f6d21u, 0x7f6ca0u,
	0x7f6c1bu, 0x7f6b91u, 0x7f6b03u, 0x7f6a70u, 0x7f69d9u, 0x7f693cu, 0x7f689cu, 0x7f67f6u, 0x7f674cu,
	0x7f669cu, 0x7f65e8u, 0x7f652eu, 0x7f646fu, 0x7f63aau, 0x7f62e0u, 0x7f6210u, 0x7f613bu, 0x7f605fu,
	0x7f5f7eu, 0x7f5e96u, 0x7f5da8u, 0x7f5cb3u, 0x7f5bb8u, 0x7f5ab5u, 0x7f59acu, 0x7f589cu, 0x7f5784u,
	0x7f5664u, 0x7f553du, 0x7f540du, 0x7f52d5u, 0x7f5195u, 0x7f504cu, 0x7f4ef9u, 0x7f4d9du, 0x7f4c38u,
	0x7f4ac8u, 0x7f494eu, 0x7f47cau, 0x7f463au, 0x7f449fu, 0x7f42f8u, 0x7f4145u, 0x7f3f84u, 0x7f3db7u,
	0x7f3bdcu, 0x7f39f3u, 0x7f37fbu, 0x7f35f3u, 0x7f33dcu, 0x7f31b3u, 0x7f2f7au, 0x7f2d2eu, 0x7f2ad0u,
	0x7f285du, 0x7f25d7u, 0x7f233au, 0x7f2087u, 0x7f1dbdu, 0x7f1adau, 0x7f17dcu, 0x7f14c4u, 0x7f118fu,
	0x7f0e3cu, 0x7f0acau, 0x7f0736u, 0x7f037fu, 0x7effa3u, 0x7efba0u, 0x7ef774u, 0x7ef31bu, 0x7eee94u,
	0x7ee9dcu, 0x7ee4efu, 0x7edfcbu, 0x7eda6bu, 0x7ed4ccu, 0x7ecee8u, 0x7ec8bcu, 0x7ec243u, 0x7ebb75u,
	0x7eb44eu, 0x7eacc6u, 0x7ea4d5u, 0x7e9c72u, 0x7e9395u, 0x7e8a32u, 0x7e803eu, 0x7e75aau, 0x7e6a69u,
	0x7e5e67u, 0x7e5193u, 0x7e43d5u, 0x7e3515u, 0x7e2534u, 0x7e1411u, 0x7e0183u, 0x7ded5du, 0x7dd767u,
	0x7dbf61u, 0x7da4fcu, 0x7d87dbu, 0x7d678bu, 0x7d437fu, 0x7d1b08u, 0x7ced48u, 0x7cb926u, 0x7c7d33u,
	0x7c3788u, 0x7be597u, 0x7b83d4u, 0x7b0d2fu, 0x7a7a35u, 0x79bf6bu, 0x78ca38u, 0x777a5cu, 0x7592afu,
	0x728fb4u, 0x6d1aa8u, 0x6045f5u, 0x000000u,
};

static const float zig_w32[ZIG_LAYERS] = {
	0x1.f493b8p-22f, 0x1.d3bb48p-22f, 0x1.b981f4p-22f, 0x1.a8fdc8p-22f, 0x1.9cbee0p-22f, 0x1.92ee0ap-22f,
	0x1.8ab0fcp-22f, 0x1.839030p-22f, 0x1.7d42e0p-22f, 0x1.779956p-22f, 0x1.727290p-22f, 0x1.6db6b8p-22f,
	0x1.69540cp-22f, 0x1.653ce8p-22f, 0x1.61669cp-22f, 0x1.5dc8a2p-22f, 0x1.5a5c08p-22f, 0x1.571b1ap-22f,
	0x1.540116p-22f, 0x1.5109f6p-22f, 0x1.4e3250p-22f, 0x1.4b773ap-22f, 0x1.48d628p-22f, 0x1.464ce4p-22f,
	0x1.43d982p-22f, 0x1.417a4ap-22f, 0x1.3f2dbap-22f, 0x1.3cf27cp-22f, 0x1.3ac758p-22f, 0x1.38ab3ap-22f,
	0x1.369d28p-22f, 0x1.349c40p-22f, 0x1.32a7b6p-22f, 0x1.30becep-22f, 0x1.2ee0dcp-22f, 0x1.2d0d44p-22f,
	0x1.2b4376p-22f, 0x1.2982ecp-22f, 0x1.27cb30p-22f, 0x1.261bccp-22f, 0x1.24745ap-22f, 0x1.22d478p-22f,
	0x1.213bcap-22f, 0x1.1fa9fcp-22f, 0x1.1e1ec0p-22f, 0x1.1c99cap-22f, 0x1.1b1ad8p-22f, 0x1.19a1a6p-22f,
	0x1.182df8p-22f, 0x1.16bf94p-22f, 0x1.155644p-22f, 0x1.13f1d6p-22f, 0x1.12921ap-22f, 0x1.1136e0p-22f,
	0x1.0fdffep-22f, 0x1.0e8d4cp-22f, 0x1.0d3ea4p-22f, 0x1.0bf3dep-22f, 0x1.0aacd8p-22f, 0x1.096970p-22f,
	0x1.082988p-22f, 0x1.06ed02p-22f, 0x1.05b3c0p-22f, 0x1.047da4p-22f, 0x1.034a98p-22f, 0x1.021a80p-22f,
	0x1.00ed44p-22f, 0x1.ff859cp-23f, 0x1.fd360ep-23f, 0x1.faebb2p-23f, 0x1.f8a660p-23f, 0x1.f665f2p-23f,
	0x1.f42a40p-23f, 0x1.f1f328p-23f, 0x1.efc086p-23f, 0x1.ed9238p-23f, 0x1.eb681cp-23f, 0x1.e94214p-23f,
	0x1.e72002p-23f, 0x1.e501cap-23f, 0x1.e2e74cp-23f, 0x1.e0d070p-23f, 0x1.debd1ap-23f, 0x1.dcad30p-23f,
	0x1.daa09ap-23f, 0x1.d89740p-23f, 0x1.d6910ap-23f, 0x1.d48de2p-23f, 0x1.d28db2p-23f, 0x1.d09064p-23f,
	0x1.ce95e4p-23f, 0x1.cc9e1cp-23f, 0x1.caa8fcp-23f, 0x1.c8b66ep-23f, 0x1.c6c660p-23f, 0x1.c4d8c2p-23f,
	0x1.c2ed7ep-23f, 0x1.c10486p-23f, 0x1.bf1dcap-23f, 0x1.bd3936p-23f, 0x1.bb56bep-23f, 0x1.b97650p-23f,
	0x1.b797dcp-23f, 0x1.b5bb54p-23f, 0x1.b3e0aap-23f, 0x1.b207d0p-23f, 0x1.b030b4p-23f, 0x1.ae5b4ep-23f,
	0x1.ac878cp-23f, 0x1.aab564p-23f, 0x1.a8e4c6p-23f, 0x1.a715a8p-23f, 0x1.a547fap-23f, 0x1.a37bb2p-23f,
	0x1.a1b0c4p-23f, 0x1.9fe722p-23f, 0x1.9e1ec2p-23f, 0x1.9c5798p-23f, 0x1.9a919ap-23f, 0x1.98ccb8p-23f,
	0x1.9708ecp-23f, 0x1.954628p-23f, 0x1.938462p-23f, 0x1.91c38ep-23f, 0x1.9003a2p-23f, 0x1.8e4496p-23f,
	0x1.8c865ap-23f, 0x1.8ac8eap-23f, 0x1.890c36p-23f, 0x1.875036p-23f, 0x1.8594e2p-23f, 0x1.83da2cp-23f,
	0x1.82200ep-23f, 0x1.80667ap-23f, 0x1.7ead68p-23f, 0x1.7cf4d0p-23f, 0x1.7b3ca4p-23f, 0x1.7984dcp-23f,
	0x1.77cd70p-23f, 0x1.761654p-23f, 0x1.745f7ep-23f, 0x1.72a8e6p-23f, 0x1.70f280p-23f, 0x1.6f3c44p-23f,
	0x1.6d8626p-23f, 0x1.6bd01ep-23f, 0x1.6a1a22p-23f, 0x1.686428p-23f, 0x1.66ae26p-23f, 0x1.64f810p-23f,
	0x1.6341dep-23f, 0x1.618b86p-23f, 0x1.5fd4fcp-23f, 0x1.5e1e38p-23f, 0x1.5c672ep-23f, 0x1.5aafd2p-23f,
	0x1.58f81cp-23f, 0x1.574000p-23f, 0x1.558774p-23f, 0x1.53ce6ep-23f, 0x1.5214e0p-23f, 0x1.505abep-23f,
	0x1.4ea002p-23f, 0x1.4ce49ap-23f, 0x1.4b2880p-23f, 0x1.496ba4p-23f, 0x1.47adfap-23f, 0x1.45ef78p-23f,
	0x1.44300ep-23f, 0x1.426fb2p-23f, 0x1.40ae58p-23f, 0x1.3eebeep-23f, 0x1.3d286ap-23f, 0x1.3b63bcp-23f,
	0x1.399dd6p-23f, 0x1.37d6acp-23f, 0x1.360e2cp-23f, 0x1.344448p-23f, 0x1.3278eep-23f, 0x1.30ac10p-23f,
	0x1.2edd9ep-23f, 0x1.2d0d86p-23f, 0x1.2b3bb6p-23f, 0x1.29681cp-23f, 0x1.2792a6p-23f, 0x1.25bb40p-23f,
	0x1.23e1d8p-23f, 0x1.220658p-23f, 0x1.2028aap-23f, 0x1.1e48bap-23f, 0x1.1c6670p-23f, 0x1.1a81b6p-23f,
	0x1.189a72p-23f, 0x1.16b08cp-23f, 0x1.14c3eap-23f, 0x1.12d470p-23f, 0x1.10e204p-23f, 0x1.0eec84p-23f,
	0x1.0cf3d6p-23f, 0x1.0af7d8p-23f, 0x1.08f86ap-23f, 0x1.06f566p-23f, 0x1.04eeaap-23f, 0x1.02e410p-23f,
	0x1.00d56ep-23f, 0x1.fd8538p-24f, 0x1.f956dap-24f, 0x1.f51f66p-24f, 0x1.f0de78p-24f, 0x1.ec93acp-24f,
	0x1.e83e94p-24f, 0x1.e3debcp-24f, 0x1.df73aap-24f, 0x1.dafce0p-24f, 0x1.d679d2p-24f, 0x1.d1e9f0p-24f,
	0x1.cd4ca0p-24f, 0x1.c8a13ap-24f, 0x1.c3e710p-24f, 0x1.bf1d62p-24f, 0x1.ba4368p-24f, 0x1.b55848p-24f,
	0x1.b05b16p-24f, 0x1.ab4ad6p-24f, 0x1.a62676p-24f, 0x1.a0eccep-24f, 0x1.9b9c98p-24f, 0x1.963478p-24f,
	0x1.90b2eap-24f, 0x1.8b164ap-24f, 0x1.855cc6p-24f, 0x1.7f845ap-24f, 0x1.798ad2p-24f, 0x1.736daep-24f,
	0x1.6d2a2ap-24f, 0x1.66bd26p-24f, 0x1.60231cp-24f, 0x1.59580ap-24f, 0x1.525756p-24f, 0x1.4b1bb4p-24f,
	0x1.439ef8p-24f, 0x1.3bd9ecp-24f, 0x1.33c3fcp-24f, 0x1.2b52e4p-24f, 0x1.227a28p-24f, 0x1.192a6ap-24f,
	0x1.0f5054p-24f, 0x1.04d322p-24f, 0x1.f32482p-25f, 0x1.dac2f6p-25f, 0x1.c004d2p-25f, 0x1.a230c2p-25f,
	0x1.801fcep-25f, 0x1.57cb94p-25f, 0x1.250af4p-25f, 0x1.b8d0bep-26f,
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rng_stream(struct gd_rng *r, uint64_t seed, unsigned i)
{
	for (int k = 0; k < 4; k++)
		r->s[k] = splitmix64(&seed);
	r->mt_seeded = false;
	while (i-- > 0)
		rng_jump(r);
}

void rng_seed(struct gd_rng *r, uint64_t seed)
{
	rng_stream(r, seed, 0);
}

uint64_t rng_entropy(void)
{
	uint64_t v;
	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* One step of xoshiro256**, on a state the caller may keep in registers. */
static inline uint64_t xoshiro(uint64_t *s)
{
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_next(struct gd_rng *r)
{
	return xoshiro(r->s);
}

void rng_jump(struct gd_rng *r)
{
	/* The coefficients of x^(2^128) modulo the characteristic polynomial of the state
	 * transition: the sum of the states they select is the state 2^128 steps ahead. */
	static const uint64_t jump[4] = { 0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull, 0xa9582618e03fc9aaull,
		                          0x39abdc4529b1661cull };
	uint64_t acc[4] = { 0, 0, 0, 0 };
	for (int w = 0; w < 4; w++) {
		for (int b = 0; b < 64; b++) {
			if (jump[w] >> b & 1) {
				for (int k = 0; k < 4; k++)
					acc[k] ^= r->s[k];
			}
			xoshiro(r->s);
		}
	}
	memcpy(r->s, acc, sizeof(acc));
	r->mt_seeded = false;
}

double rng_uniform(struct gd_rng *r)
{
	/* 53 random bits, shifted by half a step so the result is never 0 or 1. */
	return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* A variate of the normal's tail beyond ZIG_R (Marsaglia, 1964): a = -ln(U1) / r is exponential
 * and r + a is kept with probability exp(-a^2 / 2), tested as -2 ln(U2) > a^2. */
static double zig_tail(struct gd_rng *r)
{
	for (;;) {
		double a = -log(rng_uniform(r)) / ZIG_R;
		double b = -log(rng_uniform(r));
		if (b + b > a * a)
			return ZIG_R + a;
	}
}

/* Whether a point at x in layer i (1..255), outside its rectangle, lies under the curve: a
 * uniform height in [f(x_i), f(x_{i+1})] against f(x). */
static int zig_wedge(struct gd_rng *r, unsigned i, double x)
{
	return zig_f[i] + rng_uniform(r) * (zig_f[i + 1] - zig_f[i]) < exp(-0.5 * x * x);
}

/* A draw's bits. The low 8 pick the layer. The top 53 (the top 24 of a float's 32), an integer v
 * in [0, 2^53), give the position: v - 2^52 + 1/2 takes the 2^53 values +-1/2, +-3/2, ...,
 * +-(2^52 - 1/2), symmetric about 0, each once, and is computed exactly as v - (2^52 - 1/2), as
 * every value involved fits the 53-bit significand (for floats: 2^23 and 24 bits); so
 * x = (v - 2^52 + 1/2) x_i 2^-52 is exact up to the one rounding of the product. The cell across
 * the layer, counted from 0 at the axis, is |v - 2^52 + 1/2| - 1/2: v - 2^52 from 2^52 up and
 * 2^52 - 1 - v below, which is v or its complement in the low 52 bits. No bit serves twice. */
#define ZIG_LAYER(u) ((unsigned)(u) & (ZIG_LAYERS - 1))

static inline uint64_t zig_cell64(uint64_t v)
{
	return (v ^ ((v >> 52) - 1)) & ((UINT64_C(1) << 52) - 1);
}

static inline double zig_pos64(uint64_t v)
{
	return (double)(int64_t)v - (0x1p52 - 0.5);
}

static inline uint32_t zig_cell32(uint32_t v)
{
	return (v ^ ((v >> 23) - 1)) & ((UINT32_C(1) << 23) - 1);
}

static inline float zig_pos32(uint32_t v)
{
	return (float)(int32_t)v - (0x1p23f - 0.5f);
}

/* The rest of a draw u whose cell lies outside its layer's rectangle: the tail, or the wedge
 * test and then fresh draws until one is accepted. */
__attribute__((noinline)) static double zig_slow_f64(struct gd_rng *r, uint64_t u)
{
	for (;;) {
		unsigned i = ZIG_LAYER(u);
		uint64_t v = u >> 11;
		double x = zig_pos64(v) * zig_w64[i];
		if (zig_cell64(v) < zig_k64[i] || (i > 0 && zig_wedge(r, i, x)))
			return x;
		if (i == 0)
			return x < 0 ? -zig_tail(r) : zig_tail(r);
		u = rng_next(r);
	}
}

/* The same for a 32-bit draw w; the position is computed in float, as the fast path does, and a
 * retry takes the low half of a fresh 64-bit draw. */
__attribute__((noinline)) static float zig_slow_f32(struct gd_rng *r, uint32_t w)
{
	for (;;) {
		unsigned i = ZIG_LAYER(w);
		uint32_t v = w >> 8;
		float x = zig_pos32(v) * zig_w32[i];
		if (zig_cell32(v) < zig_k32[i] || (i > 0 && zig_wedge(r, i, x)))
			return x;
		if (i == 0)
			return (float)(x < 0 ? -zig_tail(r) : zig_tail(r));
		w = (uint32_t)rng_next(r);
	}
}

/* The fill loops keep the state in a local array, which the compiler holds in registers as long
 * as its address never escapes: these copy it element by element around the rare slow path. */
static inline void state_get(uint64_t *s, const struct gd_rng *r)
{
	s[0] = r->s[0];
	s[1] = r->s[1];
	s[2] = r->s[2];
	s[3] = r->s[3];
}

static inline void state_put(struct gd_rng *r, const uint64_t *s)
{
	r->s[0] = s[0];
	r->s[1] = s[1];
	r->s[2] = s[2];
	r->s[3] = s[3];
}

void rng_fill_normal_f64(struct gd_rng *r, double *out, size_t n)
{
	uint64_t s[4];
	state_get(s, r);
	for (size_t j = 0; j < n; j++) {
		uint64_t u = xoshiro(s);
		unsigned i = ZIG_LAYER(u);
		uint64_t v = u >> 11;
		if (zig_cell64(v) < zig_k64[i]) {
			out[j] = zig_pos64(v) * zig_w64[i];
		} else {
			state_put(r, s);
			out[j] = zig_slow_f64(r, u);
			state_get(s, r);
		}
	}
	state_put(r, s);
}

/* One float variate from the 32-bit draw w, with the state in s as in the fill loops. */
static inline float zig_f32(struct gd_rng *r, uint64_t *s, uint32_t w)
{
	unsigned i = ZIG_LAYER(w);
	uint32_t v = w >> 8;
	if (zig_cell32(v) < zig_k32[i])
		return zig_pos32(v) * zig_w32[i];
	state_put(r, s);
	float x = zig_slow_f32(r, w);
	state_get(s, r);
	return x;
}

void rng_fill_normal_f32(struct gd_rng *r, float *out, size_t n)
{
	uint64_t s[4];
	state_get(s, r);
	size_t j = 0;
	for (; j + 2 <= n; j += 2) {
		uint64_t u = xoshiro(s);
		out[j] = zig_f32(r, s, (uint32_t)u);
		out[j + 1] = zig_f32(r, s, (uint32_t)(u >> 32));
	}
	if (j < n)
		out[j] = zig_f32(r, s, (uint32_t)xoshiro(s));
	state_put(r, s);
}

/* ---- numpy's legacy normal: MT19937 and Marsaglia's polar method ----
 *
 * numpy's RandomState(seed).normal(size=n), value for value: its bit generator MT19937
 * (Matsumoto and Nishimura, 1998; numpy/random/src/mt19937), its legacy uniform (53 bits from
 * two 32-bit outputs) and its legacy_gauss (numpy/random/src/legacy), operation for operation:
 * x1 = 2 U1 - 1, x2 = 2 U2 - 1 (both exact), r2 = x1 x1 + x2 x2 (two roundings), rejected unless
 * 0 < r2 < 1, f = sqrt(-2 log(r2) / r2), x2 f returned first and x1 f kept as the spare, which
 * the next value is. numpy's normal adds loc 0.0 to scale 1.0 times that, which changes no bit.
 * A pair split by the end of a buffer leaves its second value as the spare, which the next call
 * returns first, as RandomState's state keeps it between calls. Every value goes through the C
 * library's log (numpy calls the same one), whose last bit may differ between libraries. */

#define MT_N 624
#define MT_M 397

/* One word of the twist: the top bit of word i and the low 31 of word i + 1, shifted and
 * conditionally xored with the twist matrix's row, into word i + M (mod N). */
static inline uint32_t mt_twist(uint32_t upper, uint32_t lower, uint32_t far)
{
	uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
	return far ^ (y >> 1) ^ (0x9908b0dfu & (0u - (y & 1u)));
}

/* The next N words of the recurrence, in place. */
__attribute__((noinline)) static void mt_regen(struct gd_rng_mt *m)
{
	uint32_t *k = m->key;
	int i = 0;
	for (; i < MT_N - MT_M; i++)
		k[i] = mt_twist(k[i], k[i + 1], k[i + MT_M]);
	for (; i < MT_N - 1; i++)
		k[i] = mt_twist(k[i], k[i + 1], k[i + MT_M - MT_N]);
	k[MT_N - 1] = mt_twist(k[MT_N - 1], k[0], k[MT_M - 1]);
	m->pos = 0;
}

static inline uint32_t mt_next(struct gd_rng_mt *m)
{
	if (m->pos >= MT_N)
		mt_regen(m);
	uint32_t y = m->key[m->pos++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

/* numpy's legacy double: 27 bits of one output over 26 of the next, exact, times 2^-53. */
static inline double mt_double(struct gd_rng_mt *m)
{
	uint32_t a = mt_next(m) >> 5;
	uint32_t b = mt_next(m) >> 6;
	return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

static void mt_reset(struct gd_rng_mt *m)
{
	m->pos = MT_N;
	m->gauss = 0;
	m->has_gauss = false;
}

void rng_mt_seed(struct gd_rng_mt *m, uint32_t seed)
{
	uint32_t *k = m->key;
	k[0] = seed;
	for (int i = 1; i < MT_N; i++)
		k[i] = 1812433253u * (k[i - 1] ^ (k[i - 1] >> 30)) + (uint32_t)i;
	mt_reset(m);
}

void rng_mt_seed_array(struct gd_rng_mt *m, const uint32_t *key, size_t n)
{
	static const uint32_t zero[1] = { 0 };
	if (n == 0) {
		key = zero;
		n = 1;
	}
	rng_mt_seed(m, 19650218u);
	uint32_t *k = m->key;
	size_t i = 1, j = 0;
	for (size_t c = n > MT_N ? n : MT_N; c > 0; c--) {
		k[i] = (k[i] ^ ((k[i - 1] ^ (k[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
		if (++i >= MT_N) {
			k[0] = k[MT_N - 1];
			i = 1;
		}
		if (++j >= n)
			j = 0;
	}
	for (size_t c = MT_N - 1; c > 0; c--) {
		k[i] = (k[i] ^ ((k[i - 1] ^ (k[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
		if (++i >= MT_N) {
			k[0] = k[MT_N - 1];
			i = 1;
		}
	}
	k[0] = 0x80000000u; /* the state is never all zeros */
	mt_reset(m);
}

/* The unit tests check MT19937 against numpy with these; the worker fills through
 * rng_fill_polar_*. */
/* cppcheck-suppress unusedFunction */
uint32_t rng_mt_next32(struct gd_rng_mt *m)
{
	return mt_next(m);
}

/* cppcheck-suppress unusedFunction */
double rng_mt_double(struct gd_rng_mt *m)
{
	return mt_double(m);
}

/* ---- numpy's call structure ----
 *
 * The original line, np.random.normal(size=n).astype(dtype), costs what numpy's code does, and
 * seed mode exists to run that loop as it was; so the values are drawn as numpy draws them,
 * call for call, not merely value for value. RandomState.normal allocates an array of doubles
 * and fills it through a function pointer to legacy_normal, which calls legacy_gauss, which
 * reaches its bit generator through the bitgen interface's next_double pointer (MT19937 lives
 * in another extension module); .astype then copies (or rounds) the array into a new one. Here
 * each of those calls stays a call (the pointers are read through volatile, so no compiler
 * folds them away), the array is allocated for each fill as numpy's is, and the copy into the
 * batch's input is the astype. */

struct bitgen {
	void *state;
	double (*next_double)(void *state);
};

struct aug_bitgen {
	struct bitgen *bit_generator;
	struct gd_rng_mt *m; /* holds has_gauss and gauss, as numpy's aug_bitgen_t does */
};

__attribute__((noinline)) static double mt19937_next_double(void *state)
{
	return mt_double(state);
}

static double legacy_double(struct aug_bitgen *aug)
{
	double (*volatile next)(void *) = aug->bit_generator->next_double;
	return next(aug->bit_generator->state);
}

__attribute__((noinline)) static double legacy_gauss(struct aug_bitgen *aug)
{
	struct gd_rng_mt *m = aug->m;
	if (m->has_gauss) {
		double tmp = m->gauss;
		m->gauss = 0;
		m->has_gauss = false;
		return tmp;
	}
	double f, x1, x2, r2;
	do {
		x1 = 2.0 * legacy_double(aug) - 1.0;
		x2 = 2.0 * legacy_double(aug) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	f = sqrt(-2.0 * log(r2) / r2);
	m->gauss = f * x1;
	m->has_gauss = true;
	return f * x2;
}

__attribute__((noinline)) static double legacy_normal(struct aug_bitgen *aug, double loc, double scale)
{
	return loc + scale * legacy_gauss(aug);
}

/* normal(size=n) into randoms, then astype into d (a copy) or else f (rounded to float). */
static void mt_fill(struct gd_rng_mt *m, double *d, float *f, size_t n)
{
	struct bitgen bg = { .state = m, .next_double = mt19937_next_double };
	struct aug_bitgen aug = { .bit_generator = &bg, .m = m };
	double (*volatile func)(struct aug_bitgen *, double, double) = legacy_normal;
	double *randoms = xmalloc(n * sizeof(double) + 1);
	for (size_t i = 0; i < n; i++)
		randoms[i] = func(&aug, 0.0, 1.0);
	if (d)
		memcpy(d, randoms, n * sizeof(double));
	else
		for (size_t i = 0; i < n; i++)
			f[i] = (float)randoms[i];
	free(randoms);
}

/* cppcheck-suppress unusedFunction */
void rng_mt_normal_f64(struct gd_rng_mt *m, double *out, size_t n)
{
	mt_fill(m, out, NULL, n);
}

/* cppcheck-suppress unusedFunction */
void rng_mt_normal_f32(struct gd_rng_mt *m, float *out, size_t n)
{
	mt_fill(m, NULL, out, n);
}

/* A struct gd_rng's own MT19937, seeded at its first use from one draw of its xoshiro256**
 * state, so each stream (each worker, each generation thread) has its own. */
static struct gd_rng_mt *own_mt(struct gd_rng *r)
{
	if (!r->mt_seeded) {
		uint64_t d = rng_next(r);
		uint32_t key[2] = { (uint32_t)d, (uint32_t)(d >> 32) };
		rng_mt_seed_array(&r->mt, key, 2);
		r->mt_seeded = true;
	}
	return &r->mt;
}

void rng_fill_polar_f64(struct gd_rng *r, double *out, size_t n)
{
	mt_fill(own_mt(r), out, NULL, n);
}

void rng_fill_polar_f32(struct gd_rng *r, float *out, size_t n)
{
	mt_fill(own_mt(r), NULL, out, n);
}

void rng_permutation(struct gd_rng *r, int *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (int)i;
	for (size_t i = n; i > 1; i--) {
		/* Lemire's unbiased bounded draw would be faster; modulo bias at n <= 2^27 of a
		 * 64-bit draw is below 2^-36 and irrelevant here. */
		size_t j = (size_t)(rng_next(r) % i);
		int t = out[i - 1];
		out[i - 1] = out[j];
		out[j] = t;
	}
}
