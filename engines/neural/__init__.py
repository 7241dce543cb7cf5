"""Neural networks' forward pass for the engines (Keras 3 on TensorFlow, and numpy).

``backend`` (Keras and model files), ``loading`` (a network by name or path, its
compiled call), ``models`` and ``resnet`` (the architectures), ``numpy_network``
(chapter 5's network from scratch). Their training lives in :mod:`engines.training`.
Nothing here is imported by ``import engines``: TensorFlow's start-up (about 3 s)
is paid only by code that builds, trains or plays a network.
"""
