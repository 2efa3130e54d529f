"""The compiled backends: cffi extensions that build.py or, installing the sdist, setup.py builds."""
