"""Packaging for the dlgo suite: one game-state API, many engines, tournaments."""
from setuptools import find_packages, setup

setup(
    name="dlgo-suite",
    version="0.1.0",
    description=(
        "Educational game-AI comparison suite: Go, tic-tac-toe and Connect Four "
        "on one game-state API, with random, alpha-beta, MCTS and neural engines."
    ),
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(include=["dlgo", "dlgo.*", "engines", "engines.*", "experiments", "experiments.*"]),
    install_requires=[
        "numpy>=1.26",
        "tensorflow>=2.16",
        "keras>=3",
        "matplotlib>=3.8",
        "pandas>=2.1",
        "tqdm>=4.66",
        "sgfmill>=1.1",
        "pillow>=9",
    ],
    extras_require={
        "test": ["pytest>=8", "hypothesis>=6.100"],
    },
    entry_points={"console_scripts": ["dlgo=dlgo.cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3.11",
        "Topic :: Games/Entertainment :: Board Games",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
