"""Training the pip dice reader's detector and classifier, and measuring them on real domains."""
