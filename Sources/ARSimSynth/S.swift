public enum S {}
