// COpenCV only carries pkg-config's flags for opencv4 to CVision.
// Nothing is imported from here into Swift.
