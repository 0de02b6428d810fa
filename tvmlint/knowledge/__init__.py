"""The knowledge in rules/*.toml: the only code that reads rules/.

One module per table (or per group of tables read together), each turning
rows into frozen dataclasses behind typed accessors, so no other module knows
a TOML key or holds a default a table holds. docs/architecture.md lists the
modules and the table each reads. Nothing is imported here: a module pays only
for the tables it asks about.
"""
