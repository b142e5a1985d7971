"""Training the face models of typed dice."""
