// annotations: every configuration finds the error
// A verified bound under a disjunctive premise: the heater's level stays
// under 100 if the sensor is in range or the controller was calibrated;
// both assumptions must break for the error.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int sensor = __VERIFIER_nondet_int();
  int calibration = __VERIFIER_nondet_int();
  __VERIFIER_assumed(sensor >= -40 && sensor <= 60, "sensor_range");
  __VERIFIER_assumed(calibration == 0, "calibrated");
  int level = 50;
  for (int i = 0; i < 4; i++) {
    if (sensor > 10 * i) level -= 5; else level += 5;
  }
  if (calibration != 0 && sensor > 200) level += sensor / 2;
  __VERIFIER_assert_verified(level < 100, "sensor_range || calibrated");
  if (!(level < 100)) reach_error();
  return 0;
}
