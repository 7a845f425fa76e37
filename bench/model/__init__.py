"""The modelled hardware's host side: the static-key words the plugin counts
data accesses to, and the exact and modelled answers per loop iteration
of the static-key module (its definition is lib/model.py).
"""
