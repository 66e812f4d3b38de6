# tests of the tiff area
