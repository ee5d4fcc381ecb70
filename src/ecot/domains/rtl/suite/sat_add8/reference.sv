module sat_add8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    output reg  [7:0] y,
    output reg        sat
);
    // One extra sign bit makes the exact sum representable.
    wire [8:0] s = {a[7], a} + {b[7], b};

    always @* begin
        if (s[8] != s[7]) begin
            sat = 1'b1;
            y = s[8] ? 8'h80 : 8'h7F;
        end else begin
            sat = 1'b0;
            y = s[7:0];
        end
    end
endmodule
