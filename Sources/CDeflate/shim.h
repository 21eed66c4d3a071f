// CDeflate only carries pkg-config's flags for libdeflate to CVision (its PNG and JPEG decoders).
// Nothing is imported from here into Swift.
