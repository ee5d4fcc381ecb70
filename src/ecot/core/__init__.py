"""The contracts every layer shares: tasks, outcomes and labels, trajectories, errors, registries."""
