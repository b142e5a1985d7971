"""Die types as data, and reading the faces of typed and enrolled dice."""
