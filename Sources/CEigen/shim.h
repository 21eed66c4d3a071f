// CEigen only carries pkg-config's flags for eigen3 to CVision.
// Nothing is imported from here into Swift.
