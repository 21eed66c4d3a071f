// CJPEG only carries pkg-config's flags for libjpeg to CVision (its PNG and JPEG decoders).
// Nothing is imported from here into Swift.
