"""The command line (`cli`, the ``gfverify`` command), the pytest plugin (`plugin`,
``pytest verify``) and the new-pack generator (`new_pack`)."""
