# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Package setup for bt_executive (ament_python layout, also pip-installable)."""

from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'bt_executive'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'bench']),
    package_data={package_name: ['py.typed', 'viewers/web/*', 'schema/*.json',
                                 'ros/fastdds_profile.xml']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml', 'plugin.xml']),
        (os.path.join('share', package_name, 'launch'), glob('launch/*.launch.py')),
        (os.path.join('share', package_name, 'config'), glob('config/*.yaml')),
    ],
    install_requires=['setuptools', 'py_trees', 'pyyaml'],
    zip_safe=True,
    maintainer='bt_executive developers',
    maintainer_email='bt-executive@example.org',
    description='A ROS 2 behaviour-tree executive: YAML trees, ROS leaves, live snapshots.',
    license='Apache-2.0',
    tests_require=['pytest'],
    python_requires='>=3.10',
    entry_points={
        'console_scripts': [
            'bt-executive = bt_executive.app.cli:main',
            'executive = bt_executive.app.programs:executive',
            'fleet_executive = bt_executive.app.programs:fleet_executive',
            'lifecycle_executive = bt_executive.app.programs:lifecycle_executive',
            'sim_robot = bt_executive.app.programs:sim_robot',
        ],
        # scenario files as pytest tests (docs/testing.md); named as the module, so that
        # a checkout that also passes -p bt_executive.testing.pytest_plugin loads it once
        'pytest11': [
            'bt_executive.testing.pytest_plugin = bt_executive.testing.pytest_plugin',
        ],
    },
)
