/* test_philox.c - the shared random-number generator: Philox4x32-10's
 * published known-answer vectors, and the accuracy of the portable log and
 * sin/cos that make randn identical on host and device. */
#include "kernels/philox.h"
#include "tests/check.h"

static void known_answers(void)
{
    /* Random123's kat_vectors for philox4x32_10: counter, key, result. */
    static const uint32_t kat[][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
         0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        const uint32_t *k = kat[i];
        philox_u4 r = philox4x32(k[0] | (uint64_t)k[1] << 32, k[2] | (uint64_t)k[3] << 32, k[4] | (uint64_t)k[5] << 32);
        for (int j = 0; j < 4; j++)
            CHECKF(r.v[j] == k[6 + j], "vector %d word %d: %08x, want %08x", i, j, r.v[j], k[6 + j]);
    }
}

static void portable_math(void)
{
    double worst_log = 0, worst_trig = 0;
    for (int i = 1; i <= 200000; i++) {
        double x = i / 200000.0 * (i % 7 ? 1.0 : 1e-9);
        double l = philox_log(x), e = fabs(l - log(x)) / fabs(log(x) ? log(x) : 1);
        worst_log = e > worst_log ? e : worst_log;
        double u = (i - 1) / 200000.0, c, s;
        philox_sincos2pi(u, &c, &s);
        double t = fmax(fabs(c - cos(2 * M_PI * u)), fabs(s - sin(2 * M_PI * u)));
        worst_trig = t > worst_trig ? t : worst_trig;
    }
    CHECKF(worst_log < 1e-14, "log: relative error %g", worst_log);
    CHECKF(worst_trig < 1e-14, "sin/cos: error %g", worst_trig);
}

static void uniform_range(void)
{
    CHECK(philox_uniform(0) == 0.0f);
    CHECK(philox_uniform(0xffffffffu) < 1.0f);
    float z0, z1;
    philox_normal2(0xffffffffu, 0, &z0, &z1); /* u1 = 1: radius 0 */
    CHECK(z0 == 0.0f && z1 == 0.0f);
    philox_normal2(0, 0, &z0, &z1); /* smallest u1: the largest value, finite */
    CHECK(isfinite(z0) && z0 > 6.5f && z0 < 7.0f);
}

int main(void)
{
    RUN(known_answers);
    RUN(portable_math);
    RUN(uniform_range);
    return check_exit();
}
