# tests of the tools area
