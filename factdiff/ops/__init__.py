"""Operations: dashboard figures, memory health, loss patterns, metrics and log lines."""
