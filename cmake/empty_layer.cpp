// Gives a layer without sources of its own one translation unit; deliberately empty.
