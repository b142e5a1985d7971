"""Training the enrolment embedding."""
