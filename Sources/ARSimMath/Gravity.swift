/// Standard gravity, m/s²: the conventional value of the acceleration of free fall (exact by
/// definition), what CoreMotion's and the capture apps' unit `g` means. Local gravity differs from
/// it by up to about 0.3%; the gravity estimate does not assume it.
public let standardGravity = 9.80665
