"""Neural-network engines and their training (Keras 3 on TensorFlow).

Nothing here is imported by ``import engines``: TensorFlow's start-up (about 3 s)
is paid only by code that builds, trains or plays a network.
"""
