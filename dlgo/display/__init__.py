"""What a person sees of long work and its results: progress bars with ETA (:mod:`.progress`,
tqdm), plots next to the CSVs (:mod:`.plotting`, matplotlib, loaded only where a report is
drawn) and pictures of positions and games (:mod:`.pictures`)."""
