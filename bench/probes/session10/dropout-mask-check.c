/* dropout-mask-check.c: call 7's host check that nn_dropout_keep's test as
 * an integer threshold on the top 24 bits, without splitmix's last step
 * (dropout-integer-test-not-kept.patch), keeps exactly the elements the
 * header's float test keeps: 330 M indices at 11 rates, and every
 * threshold u / 2^24 with u and u - 1 tested against it.
 *
 *   cc -O2 -I engine bench/probes/session10/dropout-mask-check.c -o /tmp/mask -lm && /tmp/mask
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "nn-backend-abi.h"

static int
integer_keep (uint64_t seed, int64_t step, uint64_t index, float rate)
{
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * ((uint64_t) step + 1)
               + 0xD1B54A32D192ED03ull * index;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t) (z >> 40) >= (uint32_t) ceilf (rate * 16777216.0f);
}

int
main (void)
{
  const float rates[] = { 0.0f, 0.25f, 0.5f, 0.3f, 0.2f, 0.1f, 0.999f, 1e-7f, 0.7f, 0.12345f,
                          1.0f / 3 };
  long differ = 0, checked = 0;
  for (unsigned r = 0; r < sizeof rates / sizeof rates[0]; r++)
    for (uint64_t seed = 1; seed < 4; seed++)
      for (int64_t step = 0; step < 5; step++)
        for (uint64_t i = 0; i < 2000000; i++, checked++)
          differ += nn_dropout_keep (seed * 7919, step, i, rates[r])
                    != integer_keep (seed * 7919, step, i, rates[r]);
  for (uint32_t u = 1; u < (1u << 24); u++)
    {
      float rate = (float) u / 16777216.0f;
      uint32_t threshold = (uint32_t) ceilf (rate * 16777216.0f);
      for (uint32_t v = u - 1; v <= u; v++)
        differ += ((float) v * (1.0f / 16777216.0f) >= rate) != (v >= threshold);
    }
  printf ("%ld of %ld indices differ (and of every threshold)\n", differ, checked);
  return differ != 0;
}
