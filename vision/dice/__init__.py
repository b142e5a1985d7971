"""Reading pip dice in any photo: detector, face classifier, the image pyramid, table adaptation."""
