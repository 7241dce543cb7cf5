"""Files that survive a kill: writes that land whole or not at all (:mod:`.atomic`: a
temporary file, then ``os.replace``) and run folders held by one writer at a time, with the
settings they were started with (:mod:`.folders`)."""
